// "Check every schedule" on the invariants panel (issue 27): the exhaustive checker runs in the
// Web Worker (loaded only when asked for), shows the states it has explored as it goes, and ends
// with what it proved within the bounds chosen — or opens the shortest counterexample as the run,
// at its violating step. Cancel stops it. The panel is axe-core clean.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, axe, step, liveLeaders, watchWorkers } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** In the player, "Check every schedule…" is one button: it hands the run to the workbench
 *  (loaded then, not part of the first load), where the form is. */
async function openForm(page) {
  assert.equal(await page.getByTestId('check-depth').count(), 0, 'the player draws no form');
  await page.getByTestId('check-open').click();
  await page.getByTestId('check-depth').waitFor({ timeout: 60000 });
}

test('Raft\'s one leader per term: every schedule to depth 5 is checked, and the verdict says within which bounds', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-raft');
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.waitForLoadState('networkidle');
  assert.ok(!fetched.some((p) => p.includes('lab-worker')), 'the worker is not part of the first load');
  assert.ok(!fetched.some((p) => p.includes('election-lab-workbench')), 'nor is the workbench');
  await openForm(page);
  assert.ok(fetched.some((p) => /election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/.test(p)), 'the workbench was fetched when the form was asked for');
  const panel = page.getByTestId('check-every');
  await panel.getByTestId('check-depth').fill('5');
  await panel.getByTestId('check-depth').dispatchEvent('change');
  await panel.getByRole('button', { name: 'Check every schedule' }).click();
  const status = panel.locator('[data-testid="check-status"][data-status="holds"]');
  await status.waitFor({ timeout: 60000 });
  assert.ok(fetched.some((p) => /lab-worker-[0-9a-f]{16}_bg\.wasm$/.test(p)), 'the worker\'s wasm was fetched when the check started');
  const states = Number(await status.getAttribute('data-states'));
  assert.ok(states > 1000, `${states} states`);
  assert.equal(await status.textContent(),
    `✓ No violation: all ${states} states checked within bounds (depth ≤ 5, crashes ≤ 0, partitions ≤ 0, asynchronous time).`);
  assert.ok(new URL(page.url()).searchParams.has('preset'), 'the run shown is still the preset');
  // The rule coverage, as the CLI reports it: each rule that fired and how often (by its text in
  // the page's language), then the algorithm's rules that never did.
  const coverage = panel.getByTestId('check-coverage');
  const [fired, never] = [Number(await coverage.getAttribute('data-fired')), Number(await coverage.getAttribute('data-never'))];
  assert.ok(fired > 0 && never > 0, `${fired} rules fired, ${never} never`);
  assert.equal(await coverage.locator('summary').textContent(),
    `Rule coverage: ${fired} of the algorithm's ${fired + never} rules fired in the schedules explored.`);
  await coverage.locator('summary').click();
  const rules = await coverage.locator('[data-testid="check-coverage-fired"] li').allTextContents();
  assert.equal(rules.length, fired);
  for (const r of rules) assert.match(r, /^[^{}]+ — \d+ times$/, 'a rule by its text, with how often it fired');
  assert.equal(await coverage.locator('[data-testid="check-coverage-never"] li').count(), never);
  await shot(page, 'check-holds');
  assert.deepEqual(await axe(page), [], 'axe-core finds nothing serious with the verdict shown');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Bully\'s split brain: the shortest counterexample opens as the run at its violating step', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-bully');
  assert.equal(await liveLeaders(page), 1);
  await openForm(page);
  const panel = page.getByTestId('check-every');
  await panel.getByTestId('check-property').selectOption('split-brain');
  // Keyboard: focus the button and press Enter.
  await panel.getByRole('button', { name: 'Check every schedule' }).focus();
  await page.keyboard.press('Enter');
  const status = panel.locator('[data-testid="check-status"][data-status="violated"]');
  await status.waitFor({ timeout: 60000 });
  const text = await status.textContent();
  const m = text.match(/^✗ Shortest counterexample: (\d+) moves, opened at its violating step (\d+) \((\d+) states explored\)\.$/);
  assert.ok(m, text);
  assert.equal(await step(page), Number(m[2]), 'the new run stands at the violating step');
  assert.ok(!new URL(page.url()).searchParams.has('preset'), 'a new run, not the preset');
  assert.equal(await page.locator('.invariants li[data-property="split-brain"]').getAttribute('class'), 'bad');
  assert.equal(await liveLeaders(page), 2);
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.equal(await liveLeaders(page), 1, 'one leader the step before');
  await shot(page, 'check-counterexample');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a long check shows the states it has explored, and Cancel stops it (in Chinese too)', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-raft&lang=zh');
  const workers = watchWorkers(page);
  await openForm(page);
  const panel = page.getByTestId('check-every');
  await panel.getByTestId('check-depth').fill('30');
  await panel.getByTestId('check-depth').dispatchEvent('change');
  await panel.getByRole('button', { name: '检查每一种调度' }).click();
  const running = panel.locator('[data-testid="check-status"][data-status="running"]');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="check-status"][data-status="running"]')?.dataset.states) > 0,
    null, { timeout: 30000 });
  assert.match(await running.textContent(), /^正在检查每一种调度：已探索 \d+ 个状态，深度 \d+……$/);
  assert.equal(workers.length, 1, 'one worker runs the check');
  await shot(page, 'check-progress');
  assert.deepEqual(await axe(page), [], 'axe-core finds nothing serious while it runs');
  const closed = new Promise((ok) => workers[0].on('close', ok));
  await panel.getByTestId('check-cancel').click();
  await closed;
  const status = panel.getByTestId('check-status');
  assert.equal(await status.getAttribute('data-status'), 'cancelled');
  assert.match(await status.textContent(), /^检查已取消，此前已探索 \d+ 个状态。$/);
  assert.equal(await panel.getByTestId('check-run').isEnabled(), true, 'another check may start');
  assert.deepEqual(errors, []);
  await context.close();
});
