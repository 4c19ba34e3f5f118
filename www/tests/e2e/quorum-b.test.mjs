// Paxos-based and gossip-based election in the page: ballots, duels and a minority that never
// chooses; a candidate's colour spreading through the cluster, one per side of a partition.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const leaders = (page) => page.locator('[data-role="leader"]').evaluateAll((els) => els.map((e) => Number(e.dataset.node)).sort((a, b) => a - b));
const narration = (page) => page.getByTestId('narration').textContent();
/** Node id → the candidate whose colour it wears (live nodes only). */
const tints = (page) => page.locator('[data-node][data-status="up"]').evaluateAll((els) =>
  Object.fromEntries(els.map((e) => [e.dataset.node, Number(e.querySelector('.tint')?.dataset.tint)])));
const sent = async (page, kind) => Number(await page.locator(`td[data-kind="${kind}"]`).textContent());

test('paxos-cold: one uncontested ballot costs exactly the 4(N−1) the theory line shows', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=paxos-cold&step=4');
  // N3 is gathering promises: a dashed candidate with its tally and ballot under it.
  assert.equal(await page.locator('[data-node="3"]').getAttribute('data-role'), 'preparing');
  assert.match(await page.locator('[data-node="3"]').getAttribute('aria-label'), /ballot 13, promises 1 \/ 3, preparing/);
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [3]);
  assert.match(await page.locator('.formula').textContent(), /4\(N−1\) = 16 .*counted here: 16\./);
  assert.equal(await page.locator('[data-property="chosen-once"].ok').count(), 1);
  await shot(page, 'quorum-b-paxos-cold');
  assert.deepEqual(errors, []);
});

test('paxos-duel: NACKs, a carried value in the inspector, and the chosen N4 in both languages', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=paxos-duel&step=33&sel=3');
  assert.match(await narration(page), /Paxos obliges it to propose N4, not itself, in ballot 23/);
  assert.match(await page.locator('section[aria-label="Inspector"]').textContent(), /b23 for N4, phase 2/);
  assert.equal(await page.locator('[data-node="3"]').getAttribute('data-role'), 'accepting');
  await shot(page, 'quorum-b-paxos-duel');
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [4]);
  assert.ok(await sent(page, 'NACK') >= 4, 'a real duel');
  const zh = await open(browser, server.url + '?preset=paxos-duel&step=33&lang=zh');
  assert.match(await narration(zh.page), /必须在提议编号 23 中提议 N4/);
  await shot(zh.page, 'quorum-b-paxos-duel-zh');
  assert.deepEqual([...errors, ...zh.errors], []);
});

test('split-brain-paxos: a drawn line between {1,2} and {3,4,5} leaves the minority preparing, never choosing', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-paxos');
  await page.getByRole('button', { name: 'Step forward' }).click();
  const [x1, y1] = await toPage(page, 250, 10);
  const [x2, y2] = await toPage(page, 990, 650);
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, { steps: 4 });
  await page.mouse.move(x2, y2, { steps: 4 });
  await page.mouse.up();
  await page.waitForSelector('[data-partition]');
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [5]);
  assert.equal(await page.locator('[data-testid="split-brain"]').count(), 0);
  assert.ok(await sent(page, 'PREPARE') > 40, 'the minority prepares again and again');
  assert.equal(await sent(page, 'CHOSEN'), 0, 'and nothing is ever chosen');
  for (const id of [1, 2]) {
    assert.match(await page.locator(`[data-node="${id}"]`).getAttribute('aria-label'), /no leader/);
  }
  await shot(page, 'quorum-b-split-brain-paxos');
  assert.deepEqual(errors, []);
});

test('gossip-16: every node wears its own colour, then N16\'s, then N11\'s after N16 crashes', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=gossip-16');
  const start = await tints(page);
  assert.equal(Object.keys(start).length, 16);
  for (const [id, t] of Object.entries(start)) assert.equal(t, Number(id), `N${id} backs itself`);
  const mid = await open(browser, server.url + '?preset=gossip-16&step=59');
  const spreading = Object.values(await tints(mid.page));
  assert.ok(spreading.filter((t) => t === 16).length >= 6 && spreading.some((t) => t !== 16), `N16's colour is spreading: ${spreading}`);
  await shot(mid.page, 'quorum-b-gossip-16-spreading');
  await mid.page.goto(server.url + '?preset=gossip-16&step=59&lang=zh');
  await mid.page.waitForSelector('[data-node]:not(#first-frame *)');
  await mid.page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await shot(mid.page, 'quorum-b-gossip-16-spreading-zh');
  const settled = await open(browser, server.url + '?preset=gossip-16&step=347');
  assert.deepEqual(new Set(Object.values(await tints(settled.page))), new Set([16]));
  await page.keyboard.press('End');
  assert.equal(await page.locator('[data-node="16"]').getAttribute('data-status'), 'crashed');
  assert.deepEqual(new Set(Object.values(await tints(page))), new Set([11]));
  assert.deepEqual(await leaders(page), [11]);
  assert.match(await page.locator('[data-node="3"]').getAttribute('aria-label'), /→ N11, epoch 1/);
  await shot(page, 'quorum-b-gossip-16-epoch-1');
  assert.deepEqual([...errors, ...mid.errors, ...settled.errors], []);
});

test('split-brain-gossip: two colours and a leader per side (a neutral note: gossip elects one per group by design) while cut off, one colour after healing', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-gossip&step=746');
  assert.deepEqual(await tints(page), { 1: 2, 2: 2, 3: 5, 4: 5, 5: 5 });
  assert.equal(await page.locator('[data-testid="split-brain"]').count(), 0);
  assert.match(await page.locator('[data-testid="per-group"]').textContent(), /N2, N5/);
  await shot(page, 'quorum-b-split-brain-gossip-cut');
  await page.keyboard.press('End');
  assert.deepEqual(await tints(page), { 1: 2, 2: 2, 3: 2, 4: 2, 5: 2 });
  assert.deepEqual(await leaders(page), [2]);
  assert.equal(await page.locator('[data-testid="split-brain"], [data-testid="per-group"]').count(), 0);
  await shot(page, 'quorum-b-split-brain-gossip-healed');
  assert.deepEqual(errors, []);
});
