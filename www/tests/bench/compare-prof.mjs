// Where the time goes while compare mode plays (a probe, not a test): Chromium's own counters.
import { serve, launch } from '../e2e/harness.mjs';
const server = await serve();
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
const n16 = Array.from({ length: 16 }, (_, i) => i + 1);
const busy = { algorithm: 'bully', nodes: n16, seed: 7, initial_leader: 16, network: { latency: [2, 6] },
  heartbeats: { interval: 2, timeout: 10 }, schedule: [{ at: 4, crash: 16 }], stop: { max_time: 3000 } };
const bt = Buffer.from(JSON.stringify(busy)).toString('base64url');
const q = process.argv[2] === 'single' ? `?trace=${bt}&step=0` : `?compare=bully,raft,invitation,bully-failover&trace=${bt}&time=0`;
await page.goto(server.url + q);
await page.waitForSelector('[data-node]');
await page.selectOption('select[aria-label="Speed"]', process.argv[3] || '10');
const cdp = await page.context().newCDPSession(page);
await cdp.send('Performance.enable');
const m = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((x) => [x.name, x.value]));
const a = await m();
await page.getByRole('button', { name: 'Play' }).click();
await page.waitForTimeout(5000);
await page.getByRole('button', { name: 'Pause' }).click();
const b = await m();
for (const k of ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'RecalcStyleDuration', 'LayoutCount', 'RecalcStyleCount', 'Nodes']) console.log(k, (b[k] - a[k]).toFixed(3));
console.log('t =', await page.getByTestId('time').textContent());
await browser.close();
await server.close();
