// A lesson stop's checker badge (issue 27): the Raft lesson's partition stop says that its one
// leader per term was checked in every schedule within bounds, with the number of unique states
// that `crate/tests/lesson_badge.rs` re-derives by running the check natively. Both languages;
// axe-core clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, open, shot, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const raft = JSON.parse(await readFile(new URL('../../../crate/lessons/05-raft.json', import.meta.url), 'utf8'));
const at = raft.stops.findIndex((s) => s.checked);

/** On to stop `k`, at once (the test does not wait for the animation). */
async function next(p, k) {
  await p.getByTestId('lesson-continue').click();
  await p.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
  await p.locator(`[data-testid="lesson"][data-stop="${k}"] [data-testid="lesson-caption"]`).waitFor();
}

/** Answers the stop's question, right or wrong (the badge does not care), or lets its act happen. */
async function pass(p) {
  if (await p.getByTestId('lesson-show-me').count()) {
    await p.getByTestId('lesson-show-me').click();
    await p.getByTestId('lesson-act-met').waitFor();
  } else if (await p.getByTestId('lesson-number').count()) {
    await p.getByTestId('lesson-number').fill('1');
    await p.getByTestId('lesson-check').click();
  } else if (await p.getByTestId('lesson-choice').count()) {
    await p.getByTestId('lesson-choice').first().click();
  } else if (await p.getByTestId('lesson-prompt').count()) {
    await p.locator('[data-node="1"]').click();
  }
  await p.getByTestId('lesson-continue').waitFor();
}

test('the Raft lesson\'s partition stop shows its checker badge, in English and in Chinese', async () => {
  assert.ok(at > 0, 'the Raft lesson has a badge');
  const { page, errors, context } = await open(browser, server.url + '?lesson=raft&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  for (let k = 0; k < at; k++) {
    assert.equal(await page.getByTestId('lesson-badge').count(), 0, `no badge at stop ${k}`);
    await pass(page);
    await next(page, k + 1);
  }
  const b = raft.stops[at].checked;
  const badge = page.getByTestId('lesson-badge');
  assert.equal(await badge.textContent(),
    `✓ Checked in every schedule: One leader per term holds on ${b.nodes} nodes with ≤ ${b.crashes} crash${b.crashes === 1 ? '' : 'es'} and ≤ ${b.partitions} partition${b.partitions === 1 ? '' : 's'}, to depth ${b.depth} — ${b.states} unique states.`);
  await shot(page, 'lesson-badge-en');
  assert.deepEqual(await axe(page), [], 'axe-core finds nothing serious with the badge shown');
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => /检查/.test(document.querySelector('[data-testid="lesson-badge"]')?.textContent ?? ''));
  assert.match(await badge.textContent(), new RegExp(`^✓ 已检查所有调度：${b.nodes} 个节点、至多 ${b.crashes} 次崩溃和 ${b.partitions} 次分区、深度 ${b.depth} 以内，每个任期至多一个领导者 始终成立 —— 共 ${b.states} 个不同状态。$`));
  await shot(page, 'lesson-badge-zh');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});
