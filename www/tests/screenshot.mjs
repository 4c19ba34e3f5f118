// Regenerates the README screenshot (docs/screenshot.jpg) from the built dist/.
import { serve, launch } from './e2e/harness.mjs';
import { fileURLToPath } from 'node:url';
const out = fileURLToPath(new URL('../../docs/screenshot.jpg', import.meta.url));
const server = await serve();
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
await page.goto(server.url + '?preset=bully-worst-8&step=40&sel=7');
await page.waitForSelector('[data-node]:not(#first-frame *)');
await page.screenshot({ path: out, type: 'jpeg', quality: 72 });
await browser.close();
await server.close();
console.log('wrote', out);
