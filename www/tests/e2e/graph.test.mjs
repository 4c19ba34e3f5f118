// Networks of any shape on the canvas: a scenario's topology draws its links under the nodes,
// the nodes stand where the topology puts them (a grid as a grid), the spanning tree an algorithm
// builds is drawn bold, the legend names both lines in both languages, and in the round model the
// clock reads rounds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const centres = (page) => page.locator('svg.canvas [data-node] circle.disc').evaluateAll((cs) =>
  cs.map((c) => ({ x: +c.getAttribute('cx'), y: +c.getAttribute('cy'), r: +c.getAttribute('r') })));

test('FloodMax on the 4×4 grid: 24 links, a grid of nodes, the tree bold at the end, rounds on the clock', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=floodmax-grid');
  assert.equal(await page.locator('svg.canvas line.graph-link').count(), 24, 'a 4×4 grid has 24 links');
  assert.equal(await page.locator('svg.canvas line.tree-link').count(), 0, 'no tree before any round');
  const c = await centres(page);
  assert.equal(c.length, 16);
  assert.equal(new Set(c.map((p) => Math.round(p.x))).size, 4, 'four columns');
  assert.equal(new Set(c.map((p) => Math.round(p.y))).size, 4, 'four rows');
  assert.equal(await page.locator('.legend-extra[data-extra="graph-link"]').count(), 1, 'links are in the legend');
  assert.match(await page.getByTestId('round').textContent(), /round 0/);

  const end = await open(browser, server.url + '?preset=floodmax-grid&step=288');
  assert.equal(await end.page.locator('svg.canvas line.tree-link').count(), 15, 'a spanning tree of 16 nodes has 15 links');
  assert.equal(await end.page.locator('.legend-extra[data-extra="tree-link"]').count(), 1, 'the tree is in the legend');
  assert.match(await end.page.getByTestId('round').textContent(), /round 6/);
  assert.match(await end.page.getByTestId('narration').textContent(), /Step 288:\s*Round 6: N\d+/);
  await shot(end.page, 'graph-floodmax-grid');

  const zh = await open(browser, server.url + '?preset=floodmax-grid&step=288&lang=zh');
  assert.match(await zh.page.locator('.legend-extra[data-extra="graph-link"]').textContent(), /链路/);
  assert.match(await zh.page.locator('.legend-extra[data-extra="tree-link"]').textContent(), /生成树/);
  assert.match(await zh.page.getByTestId('round').textContent(), /第 6 轮/);
  assert.deepEqual([...errors, ...end.errors, ...zh.errors], []);
  for (const o of [end, zh]) await o.context.close();
});

test('echo with extinction on a tree: the winner\'s wave draws its spanning tree', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=echo-tree&step=37');
  assert.equal(await page.locator('svg.canvas line.graph-link').count(), 9);
  assert.equal(await page.locator('svg.canvas line.tree-link').count(), 9, 'on a tree every link is a tree link');
  assert.match(await page.getByTestId('time').textContent(), /\d/, 'asynchronous: the clock reads ticks');
  assert.deepEqual(errors, []);
});

test('a scenario without a topology draws no links', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-best');
  assert.equal(await page.locator('svg.canvas line.graph-link').count(), 0);
  assert.equal(await page.locator('.legend-extra[data-extra="graph-link"]').count(), 0);
  assert.deepEqual(errors, []);
});

test('40 nodes on a 5×8 grid stay readable: no two discs overlap, every link drawn', async () => {
  const nodes = Array.from({ length: 40 }, (_, i) => (i * 17) % 41 + 1);
  const scenario = { algorithm: 'floodmax', nodes, network: { model: 'rounds' }, topology: { generate: 'grid', rows: 5, cols: 8 } };
  const link = Buffer.from(JSON.stringify(scenario)).toString('base64url');
  const { page, errors } = await open(browser, server.url + `?trace=${link}&step=40`);
  assert.equal(await page.locator('svg.canvas line.graph-link').count(), 5 * 7 + 8 * 4);
  const c = await centres(page);
  assert.equal(c.length, 40);
  for (let i = 0; i < c.length; i++) {
    for (let j = i + 1; j < c.length; j++) {
      const d = Math.hypot(c[i].x - c[j].x, c[i].y - c[j].y);
      assert.ok(d > c[i].r + c[j].r, `discs ${i} and ${j} overlap (${d.toFixed(1)} apart)`);
    }
  }
  await shot(page, 'graph-grid-40');
  assert.deepEqual(errors, []);
});
