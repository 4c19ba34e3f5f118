// The size budget: what an English reader downloads to see the first drawing — wasm, JS, CSS, the
// page and whatever else it fetches before the network goes idle — each response compressed as a
// server would (gzip -9), summed, against the budget in tests/size-budget.json. The page is not
// touched: the workbench, which a pointer or the focus on one of its tools starts loading
// (index.html), is not fetched, and a first load that fetched it anyway would fail here; nor is
// the full player (every family and the lessons): the default page is the Bully player's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, gunzipSync, brotliDecompressSync } from 'node:zlib';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, launch, DIST } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('the first load in English stays within the size budget', async () => {
  const { budget_bytes: budget } = JSON.parse(await readFile(new URL('../size-budget.json', import.meta.url)));
  const context = await browser.newContext({ locale: 'en-GB' });
  const page = await context.newPage();
  const bodies = [];
  page.on('response', (r) => {
    if (r.url().startsWith('data:')) return;
    bodies.push(r.body().then((b) => ({ url: new URL(r.url()).pathname, raw: b.length, gzip: gzipSync(b, { level: 9 }).length })));
  });
  await page.goto(server.url + '?lang=en', { waitUntil: 'networkidle' });
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.waitForLoadState('networkidle');
  const files = await Promise.all(bodies);
  const total = files.reduce((s, f) => s + f.gzip, 0);
  const table = files.map((f) => `  ${f.url.padEnd(48)} ${String(f.raw).padStart(9)} B raw ${String(f.gzip).padStart(8)} B gzip`).join('\n');
  console.log(`first load in English: ${total} B gzip (budget ${budget} B)\n${table}`);
  assert.ok(files.some((f) => f.url.endsWith('.wasm')), 'the wasm was among the downloads');
  assert.ok(!files.some((f) => /election-lab-workbench/.test(f.url)), `the workbench is no part of the first load:\n${table}`);
  // The page's chooser (index.html) starts the Bully player for the default page, not the full one.
  assert.ok(files.some((f) => /election-lab-bully-[0-9a-f]+_bg\.wasm$/.test(f.url)), `the Bully player is the first load:\n${table}`);
  assert.ok(!files.some((f) => /election-lab-www-[0-9a-f]+(_bg\.wasm|\.js)$/.test(f.url)), `the full player is no part of the first load:\n${table}`);
  assert.ok(total <= budget, `the first load is ${total} B gzip, over the budget of ${budget} B:\n${table}`);
  await context.close();
});

// A host that serves precompressed files (the guide's hosting chapter) finds a .gz and a .br beside
// each file of the first load, and each reads back to the file itself.
test('the build has gzip and Brotli copies of the page\'s files, equal to them once decompressed', async () => {
  const names = (await readdir(DIST)).filter((f) => /\.(wasm|js|css|html|json)$/.test(f));
  assert.ok(names.some((f) => f.endsWith('.wasm')), 'a wasm in dist/');
  const lines = [];
  for (const f of names) {
    const raw = await readFile(join(DIST, f));
    if (raw.length < 1024) continue;
    const gz = await readFile(join(DIST, f + '.gz'));
    const br = await readFile(join(DIST, f + '.br'));
    assert.ok(gunzipSync(gz).equals(raw), `${f}.gz reads back to ${f}`);
    assert.ok(brotliDecompressSync(br).equals(raw), `${f}.br reads back to ${f}`);
    lines.push(`  ${f.padEnd(48)} ${String(raw.length).padStart(9)} B raw ${String(gz.length).padStart(8)} B .gz ${String(br.length).padStart(8)} B .br`);
  }
  console.log(`precompressed copies in dist/:\n${lines.join('\n')}`);
});
