// YO-YO on the canvas: once the nodes know their neighbours' ids every link is drawn as an arrow
// from the larger id to the smaller, the default order (turned round where a no was voted), pruned links are dashed,
// sources and sinks wear their looks, and the legend names arrows and dashes in both languages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('YO-YO on the 4×4 grid: arrows while it runs, every link pruned when N44 is alone', async () => {
  const start = await open(browser, server.url + '?preset=yoyo-grid');
  assert.equal(await start.page.locator('svg.canvas line.graph-link').count(), 24);
  assert.equal(await start.page.locator('svg.canvas line.oriented-link').count(), 0, 'no orientation before the ids are known');

  const mid = await open(browser, server.url + '?preset=yoyo-grid&step=80');
  const arrows = mid.page.locator('svg.canvas line.oriented-link');
  assert.ok(await arrows.count() > 0, 'oriented links are drawn');
  for (const a of await arrows.all()) {
    const heads = [await a.getAttribute('marker-end'), await a.getAttribute('marker-start')].filter(Boolean);
    assert.ok(heads.length >= 1, 'an oriented link has an arrow head');
  }
  assert.equal(await mid.page.locator('.legend-extra[data-extra="oriented-link"]').count(), 1);
  assert.equal(await mid.page.locator('.legend-extra[data-extra="pruned-link"]').count(), 1);
  await shot(mid.page, 'yoyo-grid-mid');

  const end = await open(browser, server.url + '?preset=yoyo-grid&step=230');
  assert.equal(await end.page.locator('svg.canvas line.pruned-link').count(), 24, 'N44 alone: every link pruned');
  assert.equal(await end.page.locator('svg.canvas line.oriented-link').count(), 0);
  assert.match(await end.page.getByTestId('narration').textContent(), /LEADER\(44\)/, 'N44 leads');
  await shot(end.page, 'yoyo-grid-end');

  const zh = await open(browser, server.url + '?preset=yoyo-grid&step=80&lang=zh');
  assert.match(await zh.page.locator('.legend-extra[data-extra="oriented-link"]').textContent(), /箭头/);
  assert.match(await zh.page.locator('.legend-extra[data-extra="pruned-link"]').textContent(), /剪除/);
  assert.deepEqual([...start.errors, ...mid.errors, ...end.errors, ...zh.errors], []);
  for (const o of [start, mid, end, zh]) await o.context.close();
});
