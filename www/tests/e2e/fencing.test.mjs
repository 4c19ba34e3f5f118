// Fencing tokens in the page: the store box in the middle of the ring, the writes on their way,
// and the verdict of each write — the worked example (token 1, then 2, then a stale 1 rejected).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const store = async (page) => page.getByTestId('store').evaluate((g) => ({
  value: g.dataset.value, token: g.dataset.maxToken, accepted: g.dataset.accepted, rejected: g.dataset.rejected,
}));

test('the fencing preset: 100@1 and 999@2 accepted, the stale 50@1 rejected, 999 stays', async () => {
  // Step 368 issues N5's stale write; step 371 is the store's verdict on it.
  const { page, errors } = await open(browser, server.url + '?preset=fencing-tokens&step=370');
  assert.deepEqual(await store(page), { value: '999', token: '2', accepted: '2', rejected: '0' });
  assert.equal(await page.locator('.store-write[data-node="5"]').count(), 1, 'N5\'s write is on its way');
  assert.match(await page.locator('.store-write text').textContent(), /W 50@1/);
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('.store-verdict.rejected[data-node="5"]');
  assert.deepEqual(await store(page), { value: '999', token: '2', accepted: '2', rejected: '1' });
  assert.match(await page.getByTestId('narration').textContent(), /rejects N5's write of 50: token 1 is below 2.*stale leader/);
  // Both still believe they lead: the fence, not the election, stopped N5.
  // The split-brain banner itself (not the page text, where the preset picker always names split brain).
  assert.match(await page.getByTestId('split-brain').textContent(), /N2\b.*N5\b/);
  await shot(page, 'fencing-rejected');

  const zh = await open(browser, server.url + '?preset=fencing-tokens&step=371&lang=zh');
  assert.match(await zh.page.getByTestId('narration').textContent(), /存储拒绝 N5 写入的 50/);
  assert.match(await zh.page.getByTestId('store').textContent(), /存储 = 999/);
  await shot(zh.page, 'fencing-rejected-zh');
  assert.deepEqual([...errors, ...zh.errors], []);
});

test('a scenario without fencing draws no store', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-bully');
  assert.equal(await page.getByTestId('store').count(), 0);
  assert.deepEqual(errors, []);
});

test('with a lease, whose key-value store sits at the centre, the fenced store moves aside', async () => {
  const scenario = { algorithm: 'lease', nodes: [1, 2, 3, 4, 5], seed: 425, initial_leader: 5,
    params: { ttl: 60, period: 4, margin: 2, drift: { 5: 0.8 } }, fencing: { write_every: 8 },
    schedule: [{ at: 10, isolate: 5 }, { at: 120, heal: true }], stop: { max_time: 150 } };
  const link = Buffer.from(JSON.stringify(scenario)).toString('base64url');
  const { page, errors } = await open(browser, server.url + `?trace=${link}&step=60`);
  const box = await page.locator('[data-testid="store"] .store-box').boundingBox();
  // The node drawn at the centre is the lease's store; no node circle may sit under the box.
  for (const c of await page.locator('[data-node] circle').all()) {
    const b = await c.boundingBox();
    if (!b) continue;
    const apart = b.x + b.width < box.x || box.x + box.width < b.x || b.y + b.height < box.y || box.y + box.height < b.y;
    assert.ok(apart, `a node circle at ${JSON.stringify(b)} lies under the store box ${JSON.stringify(box)}`);
  }
  await shot(page, 'fencing-with-lease');
  assert.deepEqual(errors, []);
});
