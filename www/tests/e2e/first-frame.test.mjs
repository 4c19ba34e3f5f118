// What the first frame leaves for later (docs/performance.md, "Where the time to the first node
// goes"): the run ahead of the cursor past its first 1 000 steps and the preset list's options
// come after the first paint. Once there, they are what computing everything at once gives.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const markers = (page) => page.locator('.markers .marker').evaluateAll((els) => els.map((e) => `${e.className}@${e.dataset.step}`).join(' '));
const head = (page) => page.locator('input[aria-label="Timeline"]').getAttribute('max');

test('the scrubber and its markers, computed after the first paint, end as computed at once', async () => {
  // A run of about 1 500 steps with a partition, elections and a heal: longer than the first window.
  const url = server.url + '?preset=dht-split-brain&lang=en';
  // At once: Reset replaces the run and computes its 20 000 steps ahead in one go.
  const a = await open(browser, url);
  await a.page.getByRole('button', { name: 'Reset' }).click();
  const wantHead = await head(a.page);
  const want = await markers(a.page);
  assert.ok(Number(wantHead) > 1000, `a run longer than the first window (${wantHead} steps)`);
  assert.ok(want.length > 0, 'markers on the scrubber');
  // A fresh page: the same head and markers once its slices are done.
  const b = await open(browser, url);
  await b.page.waitForFunction((h) => document.querySelector('input[aria-label="Timeline"]')?.getAttribute('max') === h, wantHead);
  assert.equal(await markers(b.page), want);
  // The preset list is whole and shows the preset (a native select: keyboard and screen readers
  // as before; a11y.test.mjs runs axe on the page).
  const options = (p) => p.getByLabel('Preset', { exact: true }).locator('option').count();
  assert.equal(await options(b.page), await options(a.page));
  assert.ok(await options(b.page) > 50, `${await options(b.page)} options`);
  const select = b.page.getByLabel('Preset', { exact: true });
  assert.equal(await select.inputValue(), 'dht-split-brain');
  assert.deepEqual([...a.errors, ...b.errors], []);
  await a.context.close();
  await b.context.close();
});
