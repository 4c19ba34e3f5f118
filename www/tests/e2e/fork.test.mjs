// Forking at a past step (issue 19): acting before the furthest step shown offers to keep both
// futures; the fork shows them in two lanes on one clock, with their first divergence marked on
// the shared timeline and on each lane — the divergence `election-lab diff` finds between the
// same two runs (exported from the page, compared on the command line).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, shot } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** `election-lab diff --json A B` (exit code 1 means the runs differ). */
function diff(a, b) {
  const args = ['run', '--quiet', '--offline', '-p', 'election-lab', '--', 'diff', '--json', a, b];
  try {
    return JSON.parse(execFileSync('cargo', args, { cwd: root, encoding: 'utf8' }));
  } catch (e) {
    assert.equal(e.status, 1, String(e.stderr));
    return JSON.parse(e.stdout);
  }
}

test('fork at a past step shows two lanes with the divergence marked', async () => {
  const { page, errors } = await open(browser, `${server.url}?preset=bully-heartbeats&step=60`);
  // Back to step 20 with the scrubber, then crash N5 there: before step 60, already shown.
  await page.locator('.timeline input[type=range]').fill('20');
  await page.locator('[data-node="5"]').click();
  const offer = page.getByTestId('fork-offer');
  await offer.waitFor();
  assert.match(await offer.innerText(), /step 20.*step 60/s);

  // The new future, as the page exports it; the old one is the same run without the crash.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export trace' }).click()]);
  const now = JSON.parse(await readFile(await dl.path(), 'utf8'));
  assert.equal(now.interventions.length, 1);
  const dir = await mkdtemp(join(tmpdir(), 'fork-'));
  const [a, b] = [join(dir, 'old.json'), join(dir, 'new.json')];
  // Both to their end: a first divergence within the lanes' stretch is the same.
  await writeFile(a, JSON.stringify({ ...now, interventions: [], step: 1e6 }));
  await writeFile(b, JSON.stringify({ ...now, step: 1e6 }));
  const want = diff(a, b).first;
  assert.ok(want, 'the crash changes the run');

  // Fork: reached by keyboard (focus the button, Enter).
  await page.getByTestId('fork').focus();
  await page.keyboard.press('Enter');
  const lanes = page.locator('section.lane');
  await lanes.nth(1).waitFor();
  assert.equal(await lanes.count(), 2);
  assert.deepEqual(
    await lanes.evaluateAll((ls) => ls.map((l) => l.dataset.role)),
    ['OldFuture', 'NewFuture'],
  );
  const named = page.getByTestId('divergence');
  assert.equal(Number(await named.getAttribute('data-time')), want.time);
  assert.match(await named.innerText(), new RegExp(`First difference at t = ${want.time}`));
  // Marked on each lane at its own step, and on the shared timeline (a named, focusable target).
  const steps = await page.getByTestId('lane-divergence').evaluateAll((ls) => ls.map((l) => Number(l.dataset.step)));
  assert.deepEqual(steps, [want.step_a, want.step_b]);
  const mark = page.locator('.markers .marker.diverge');
  assert.equal(await mark.count(), 1);
  assert.equal(Number(await mark.getAttribute('data-step')), want.time);
  assert.equal(await mark.getAttribute('tabindex'), '0');
  assert.match(await mark.getAttribute('aria-label'), /First difference/);
  assert.equal(await page.locator('.timeline .legend .marker.diverge').count(), 1, 'in the legend');
  await shot(page, 'fork-two-futures');

  // Going to it moves the shared clock there.
  await page.getByTestId('divergence-go').click();
  assert.match(await page.locator('.timeline input[type=range]').getAttribute('aria-valuetext'), new RegExp(`t = ${want.time} `));

  // In Chinese: the lanes and the difference are named in Chinese.
  await page.keyboard.press('l');
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  assert.match(await lanes.first().locator('.lane-title').innerText(), /旧的未来/);
  assert.match(await named.innerText(), /第一处差异/);
  await shot(page, 'fork-two-futures-zh');
  assert.deepEqual(errors, []);
});
