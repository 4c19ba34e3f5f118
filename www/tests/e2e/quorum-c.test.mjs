// The DHT election's hash ring and the lease election's store and lease bars, in the page:
// nodes in hash order with the key marked, an arc from the key to each leader, the store apart
// at the centre, bars draining in each node's own clock, and the overlap a slow clock causes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const CJK = /[\u4e00-\u9fff]/;
const narration = (page) => page.getByTestId('narration').textContent();

/** Each node's disc centre in viewBox units, by id. */
const centres = (page) => page.locator('[data-node] circle.disc').evaluateAll((cs) => Object.fromEntries(cs.map((c) =>
  [c.closest('[data-node]').dataset.node, [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]])));

const arcs = (page) => page.locator('.key-arc').evaluateAll((ps) => ps.map((p) => p.dataset.arcTo).sort());

test('DHT: nodes sit round the ring in hash order, the key is marked, and an arc reaches each leader', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=dht-split-brain');
  const c = await centres(page);
  // Clockwise from the top. The hashes put 1..5 in the order 3, 5, 4, 1, 2.
  const angle = ([x, y]) => (Math.atan2(x - 500, -(y - 500)) * 180 / Math.PI + 360) % 360;
  const order = Object.keys(c).sort((a, b) => angle(c[a]) - angle(c[b])).map(Number);
  assert.deepEqual(order, [3, 5, 4, 1, 2]);
  for (const p of Object.values(c)) assert.ok(Math.abs(Math.hypot(p[0] - 500, p[1] - 500) - 380) < 1, 'on the ring');
  assert.equal(await page.locator('.hash-ring .ring-key').count(), 1);
  assert.deepEqual(await arcs(page), ['5'], 'the key\'s successor, N5, leads');

  // After the cut {1,2} | {3,4,5} and one timeout: each side's view finds its own successor.
  const cut = await open(browser, server.url + '?preset=dht-split-brain&step=400');
  assert.deepEqual(await arcs(cut.page), ['1', '5']);
  assert.match(await cut.page.getByTestId('split-brain').textContent(), /N1.*N5/);
  await shot(cut.page, 'quorum-c-dht-split');
  const zh = await open(browser, server.url + '?preset=dht-split-brain&step=400&lang=zh');
  assert.match(await narration(zh.page), CJK);
  assert.match(await zh.page.getByTestId('split-brain').textContent(), /脑裂/);
  await shot(zh.page, 'quorum-c-dht-split-zh');
  assert.deepEqual([...errors, ...cut.errors, ...zh.errors], []);
});

test('Lease: the store sits at the centre, and a slow clock\'s bar outlives the key it was granted', async () => {
  // Step 180: the store has given the key to N4, yet N5 (clock ×0.8, cut off) still believes.
  const { page, errors } = await open(browser, server.url + '?preset=lease-drift&step=180');
  const c = await centres(page);
  assert.deepEqual(c['1'], [500, 500], 'the store is drawn apart, at the centre');
  assert.match(await page.locator('[data-node="1"]').getAttribute('class'), /look-store/);
  const held = await page.locator('.lease-bar.held').evaluateAll((gs) => gs.map((g) => g.dataset.leaseOf).sort());
  assert.deepEqual(held, ['4', '5']);
  assert.equal(await page.locator('.lease-bar[data-lease-of="1"]').count(), 1, 'the store\'s key has its own bar');
  assert.match(await page.locator('.lease-bar[data-lease-of="5"] .lease-text').textContent(), /\/58 ×0\.8$/);
  assert.match(await page.getByTestId('split-brain').textContent(), /N4.*N5/);
  await shot(page, 'quorum-c-lease-overlap');

  // N5's bar drains as time passes, though nothing happens at N5.
  const left = async () => Number(await page.locator('.lease-bar[data-lease-of="5"]').getAttribute('data-left'));
  const before = await left();
  for (let i = 0; i < 12; i++) await page.getByRole('button', { name: 'Step forward' }).click();
  assert.ok(await left() < before, `drained from ${before}`);

  // Step 206: N5's own clock ends its lease; its bar is gone.
  const end = await open(browser, server.url + '?preset=lease-drift&step=206');
  assert.match(await narration(end.page), /N5's own clock says its lease of 58 ticks has run out/);
  assert.equal(await end.page.locator('.lease-bar[data-lease-of="5"]').count(), 0);
  const zh = await open(browser, server.url + '?preset=lease-drift&step=180&lang=zh');
  assert.match(await zh.page.getByTestId('split-brain').textContent(), /N4.*N5/);
  await shot(zh.page, 'quorum-c-lease-overlap-zh');
  assert.deepEqual([...errors, ...end.errors, ...zh.errors], []);
});

test('Lease: a drawn line can leave the store on one side, and the other side cannot reach it', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=lease-takeover');
  // A vertical line right of the centre: N3 (on the right) is alone, away from the store N1.
  const [x1, y1] = await toPage(page, 600, 20);
  const [x2, y2] = await toPage(page, 600, 980);
  await page.mouse.move(x1, y1); await page.mouse.down(); await page.mouse.move(x2, y2, { steps: 6 }); await page.mouse.up();
  await page.waitForSelector('[data-partition]');
  let seen = false;
  for (let i = 0; i < 80 && !seen; i++) {
    await page.getByRole('button', { name: 'Step forward' }).click();
    seen = /CAS\(create\) from N3 cannot reach N1/.test(await narration(page));
  }
  assert.ok(seen, 'N3\'s requests are cut off from the store');
  await shot(page, 'quorum-c-lease-line');
  assert.deepEqual(errors, []);
});
