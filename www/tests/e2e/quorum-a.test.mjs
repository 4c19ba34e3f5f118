// ZooKeeper's fast leader election and stable leader election in the page: the vote arrows and
// tallies, the ZXIDs, the minority that never elects, and the partition that splits a stable
// leader's cluster where a quorum would not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const leaders = (page) => page.locator('[data-node].look-leader').evaluateAll((els) => els.map((e) => Number(e.dataset.node)).sort((a, b) => a - b));
const role = (page, id) => page.locator(`[data-node="${id}"]`).getAttribute('data-role');
const forward = (page) => page.getByRole('button', { name: 'Step forward' }).click();

/** Draws the course's partition line between {1,2} and {3,4,5}. */
async function cut(page) {
  const [x1, y1] = await toPage(page, 250, 10);
  const [x2, y2] = await toPage(page, 990, 650);
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move(x2, y2, { steps: 8 });
  await page.mouse.up();
  await page.waitForSelector('[data-partition]');
}

/** Opens `preset`, steps once, draws the course's partition and runs to the end (a shot of it). */
async function partitioned(preset) {
  const opened = await open(browser, server.url + `?preset=${preset}`);
  await forward(opened.page);
  await cut(opened.page);
  await opened.page.keyboard.press('End');
  await shot(opened.page, `${preset}-partitioned`);
  return opened;
}

test('ZooKeeper: vote arrows converge on the largest (ZXID, SID) and a tally counts them', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=zookeeper-votes-5');
  // At boot every node votes for itself: no arrow yet, each node shows its ZXID.
  assert.equal(await page.locator('.vote-arrow').count(), 0);
  assert.match(await page.locator('[data-node="3"]').getAttribute('aria-label'), /zxid 0/);
  assert.equal(await role(page, 1), 'looking');
  let most = 0;
  for (let i = 0; i < 60 && most < 5; i++) {
    await forward(page);
    const n = await page.locator('.vote-tally[data-votes-for="5"]').count();
    if (n) most = Number(await page.locator('.vote-tally[data-votes-for="5"]').getAttribute('data-votes'));
  }
  assert.equal(most, 5, 'all five vote for N5 before anyone decides');
  assert.equal(await page.locator('.vote-arrow[data-vote-for="5"]').count(), 4);
  await shot(page, 'zookeeper-votes-converged');
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [5]);
  assert.equal(await role(page, 5), 'leading');
  assert.equal(await page.locator('.vote-arrow').count(), 0, 'decided nodes draw no vote arrow');
  assert.match(await page.locator('[data-node="2"]').getAttribute('aria-label'), /→ N5/);
  assert.deepEqual(errors, []);
});

test('ZooKeeper: under the course partition the minority looks forever and never elects', async () => {
  const { page, errors } = await partitioned('split-brain-zookeeper');
  assert.deepEqual(await leaders(page), [5]);
  assert.equal(await page.getByTestId('split-brain').count(), 0);
  assert.equal(await page.locator('[role="alert"]').count(), 0);
  for (const id of [1, 2]) {
    assert.equal(await role(page, id), 'looking', `N${id}`);
    assert.match(await page.locator(`[data-node="${id}"]`).getAttribute('aria-label'), /votes 2 \/ 3/, `N${id}: 2 of the 3 votes a quorum needs`);
  }
  assert.equal(await page.locator('.vote-tally[data-votes-for="2"]').getAttribute('data-votes'), '2');
  assert.equal(await page.locator('.invariants li[data-property="two-leaders-in-term"].ok').count(), 1);
  assert.deepEqual(errors, []);
});

test('stable leader: the same partition splits the brain', async () => {
  const { page, errors } = await partitioned('split-brain-stable-leader');
  assert.deepEqual(await leaders(page), [1, 5]);
  assert.match(await page.getByTestId('split-brain').textContent(), /Split brain: N1, N5/);
  assert.deepEqual(errors, []);
});

test('stable leader: the recovered highest id follows, in English and in Chinese', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, errors } = await open(browser, server.url + `?preset=stable-leader-recovery&step=99999&lang=${lang}`);
    assert.deepEqual(await leaders(page), [1]);
    assert.equal(await role(page, 5), 'follower');
    assert.equal(await page.locator('.invariants li[data-property="leader-demoted"].ok').count(), 1, 'no live leader was replaced');
    await page.getByTestId('how-it-works').click();
    assert.match(await page.getByTestId('card').textContent(), lang === 'zh' ? /轮/ : /round/);
    await shot(page, `stable-leader-recovery-${lang}`);
    assert.deepEqual(errors, []);
  }
});

test('ZooKeeper in Chinese: roles, narration and the ZXID tie-break', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=zookeeper-leader-lost&step=60&lang=zh');
  assert.match(await page.getByTestId('narration').textContent(), /[\u4e00-\u9fff]/);
  assert.ok(await page.locator('.vote-arrow').count() > 0, 'mid-election: votes drawn');
  await shot(page, 'zookeeper-leader-lost-zh');
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [3], 'ZXID 9 ties between N2 and N3; the larger SID wins');
  assert.deepEqual(errors, []);
});
