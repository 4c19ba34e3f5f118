// A slow script in a fork (issue 26): a lane whose script takes many operations a message is
// computed in slices, saying "Computing this lane…", while the page answers (the language
// switch); once computed, both futures stand at the fork's time, the crash only in the new one.
// The other paths that rebuild a script's run in slices, opened as a student would: a compare
// lane, and a JSON Lines trace link opened fresh (the player hands it to the workbench).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, open, cli, ROOT } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The Bully template slowed down: every message costs its handler a loop of `loops`. */
const slowed = (template, loops) =>
  template.replace('fn on_message(from, msg) {', `fn on_message(from, msg) {\n    let i = 0;\n    while i < ${loops} { i += 1; }`);

/** Opens the editor on bully-worst-8, runs the Bully template slowed down (every message
 * costs its handler a long loop) and returns the link's `script=` value. */
async function slowScript(page, loops = 150000) {
  await page.locator('.scenario-bar select').first().selectOption('__script__');
  await page.getByTestId('script-editor').waitFor();
  const template = await page.getByTestId('script-source').inputValue();
  const slow = slowed(template, loops);
  assert.notEqual(slow, template);
  await page.getByTestId('script-source').fill(slow);
  await page.getByTestId('script-run').click();
  await page.waitForFunction(() => /[?&]script=/.test(location.search));
  return new URLSearchParams(await page.evaluate(() => location.search)).get('script');
}

/** While a lane computes, the language switch takes effect, the lane's status with it. */
async function answersMeanwhile(page) {
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=lane-computing]')].some((p) => /正在计算/.test(p.textContent)));
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
}

test('a fork of a slow script\'s run rebuilds both futures in slices while the page answers', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-worst-8');
  await slowScript(page);
  const status = page.locator('p.computing');
  // The whole run, then back to step 6 where N3 is crashed: a future already seen is kept.
  await page.keyboard.press('End');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=step]')?.textContent) > 8, null, { timeout: 120000 });
  await status.waitFor({ state: 'detached', timeout: 120000 });
  await page.locator('.timeline input[type=range]').fill('6');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '6', null, { timeout: 120000 });
  await page.locator('[data-node="3"] .disc').click();
  await page.getByTestId('fork-offer').waitFor();
  await page.getByTestId('fork').click();
  const lanes = page.locator('section.lane');
  await lanes.nth(1).waitFor();
  await page.getByTestId('lane-computing').first().waitFor();
  await answersMeanwhile(page);
  await page.getByTestId('lane-computing').first().waitFor({ state: 'detached', timeout: 120000 });
  assert.deepEqual(await lanes.evaluateAll((ls) => ls.map((l) => l.dataset.role)), ['OldFuture', 'NewFuture']);
  // Both at the time the fork was made: the crash only in the new future.
  await page.waitForFunction(() => document.querySelector('section.lane[data-role=NewFuture] [data-node="3"]')?.dataset.status === 'crashed');
  assert.notEqual(await page.locator('section.lane[data-role=OldFuture] [data-node="3"]').getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
  await context.close();
});

/** Each node's status and role in lane `k` (1-based), in node order. */
const laneNodes = (page, k) => page.locator(`section.lane:nth-of-type(${k}) [data-node]`)
  .evaluateAll((ns) => ns.map((n) => `${n.dataset.node}:${n.dataset.status}:${n.dataset.role}`));

test('a slow script\'s compare lane says it is computing, then shows its run: the built-in\'s, its crash included', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-worst-8');
  await slowScript(page);
  await page.locator('p.computing').waitFor({ state: 'detached', timeout: 120000 });
  await page.locator('.timeline input[type=range]').fill('12');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '12', null, { timeout: 120000 });
  await page.locator('[data-node="3"] .disc').click();
  await page.waitForFunction(() => document.querySelector('[data-node="3"]')?.dataset.status === 'crashed');
  // The script's lane beside the built-in Bully it was written from.
  await page.getByTestId('compare').click();
  const dialog = page.getByRole('dialog', { name: 'Compare algorithms' });
  const want = ['bully-script', 'bully'];
  for (const id of want) {
    if (!(await dialog.locator(`input[data-algorithm="${id}"]`).isChecked())) await dialog.locator(`input[data-algorithm="${id}"]`).click();
  }
  const checked = await dialog.locator('input[type="checkbox"]:checked').evaluateAll((boxes) => boxes.map((b) => b.dataset.algorithm));
  for (const id of checked.filter((id) => !want.includes(id))) await dialog.locator(`input[data-algorithm="${id}"]`).click();
  await dialog.getByTestId('compare-go').click();
  const lanes = page.locator('section.lane');
  await lanes.nth(1).waitFor();
  assert.deepEqual(await lanes.evaluateAll((ls) => ls.map((l) => l.dataset.algorithm)), want);
  await page.locator('section.lane[data-algorithm="bully-script"] [data-testid=lane-computing]').waitFor();
  await page.getByTestId('lane-computing').waitFor({ state: 'detached', timeout: 120000 });
  // Computed: the template runs as the built-in, so both lanes show the same nodes, N3 crashed.
  const [script, builtin] = [await laneNodes(page, 1), await laneNodes(page, 2)];
  assert.ok(script.includes('3:crashed:crashed'), script.join(' '));
  assert.deepEqual(script, builtin);
  assert.equal(await page.locator('.banner.alert').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a JSON Lines trace link of a script\'s run, opened fresh, is read by the workbench in slices and opens at its step', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'jsonl-link-'));
  const [scenario, script, out] = [join(dir, 'bully.json'), join(dir, 'slow.rhai'), join(dir, 'slow.jsonl')];
  const source = slowed(await readFile(join(ROOT, 'crate', 'scripts', 'bully.rhai'), 'utf8'), 2000)
    .replace('id: "bully-script"', 'id: "bully-slow-jsonl"');
  assert.match(source, /bully-slow-jsonl/);
  await writeFile(scenario, cli('preset', 'bully-worst-8'));
  await writeFile(script, source);
  cli('run', scenario, '--script', script, '--trace', out);
  const lines = await readFile(out, 'utf8');
  assert.equal(JSON.parse(lines.split('\n')[0]).scenario.algorithm, 'bully-slow-jsonl');
  const b64 = (text) => Buffer.from(text).toString('base64url');
  const step = 17;
  const { page, errors, context } = await open(browser, `${server.url}?trace=${b64(lines)}&script=b.${b64(source)}&step=${step}`);
  // The player hands the link over; the workbench rebuilds the run and checks every line.
  await page.waitForFunction(() => typeof window.wasmBindings?.sweep_csv === 'function', null, { timeout: 60000 });
  await page.waitForFunction((s) => document.querySelector('[data-testid=step]')?.textContent === String(s)
    && !document.querySelector('p.computing'), step, { timeout: 120000 });
  assert.equal(await page.locator('[data-node]').count(), 8);
  assert.equal(await page.locator('.banner.alert').count(), 0);
  assert.match(page.url(), /[?&]script=/, 'the run shown is the script\'s');
  assert.deepEqual(errors, []);
  await context.close();
});
