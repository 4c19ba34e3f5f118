// Your own algorithm in the page (issue 26): "Write your own…" in the player's picker loads the
// workbench and opens the editor on the Bully template; a bug that lets two nodes lead shows in
// the invariants panel; a syntax error is underlined at its line and column; an endless loop stops
// the run at its step with the handler and line named, and the page goes on; the link carries the
// script and opens the same run in a new page. axe-core finds nothing serious with the editor open.
// A slow but valid script is computed in slices: the page answers clicks while it computes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, axe, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Opens the editor from the picker of a fresh player on `preset`. */
async function editor(preset, viewport) {
  const opened = await open(browser, server.url + `?preset=${preset}`, viewport);
  await opened.page.locator('.scenario-bar select').first().selectOption('__script__');
  await opened.page.getByTestId('script-editor').waitFor();
  return opened;
}

/** Replaces the editor's text by `source` and runs it. */
async function run(page, source) {
  await page.getByTestId('script-source').fill(source);
  await page.getByTestId('script-run').click();
}

test('a Bully with a bug shows two leaders in the invariants panel, and its link opens the same run', async () => {
  const { page, errors, context } = await editor('bully-worst-8');
  const template = await page.getByTestId('script-source').inputValue();
  assert.match(template, /fn on_start\(\)/, 'the Bully template is loaded');
  assert.equal(await page.getByTestId('script-template').inputValue(), 'bully');
  // The correct template first: one leader at the end, as the built-in.
  await run(page, template);
  await page.locator('.banner.notice', { hasText: 'Your script runs' }).waitFor();
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('.invariants li[data-property="split-brain"]')?.className === 'ok');
  // The bug: a node that starts an election hears from nobody above it, so each declares itself.
  const buggy = template.replace('let up = higher();', 'let up = [];');
  assert.notEqual(buggy, template);
  await run(page, buggy);
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelector('.invariants li[data-property="split-brain"]')?.className === 'bad');
  await shot(page, 'script-editor-1280');
  assert.deepEqual(await axe(page), [], 'axe-core finds nothing serious with the editor open');
  // The link carries the script: a new page opens it in the workbench, on the same run.
  const search = await page.evaluate(() => location.search);
  assert.match(search, /[?&]script=1\./);
  const endStep = await step(page);
  const metrics = await page.locator('table.metrics').textContent();
  const other = await open(browser, server.url + search);
  await other.page.getByTestId('script-editor').waitFor();
  assert.equal(await other.page.getByTestId('script-source').inputValue(), buggy);
  await other.page.keyboard.press('End');
  await other.page.waitForFunction((s) => document.querySelector('[data-testid=step]')?.textContent === String(s), endStep);
  assert.equal(await other.page.locator('.invariants li[data-property="split-brain"]').getAttribute('class'), 'bad');
  assert.equal(await other.page.locator('table.metrics').textContent(), metrics, 'the same messages by kind');
  assert.deepEqual(other.errors, []);
  await other.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a syntax error is underlined at its line; an endless loop stops the run at its step and the page goes on', async () => {
  const { page, errors, context } = await editor('bully-worst-8', { width: 375, height: 812 });
  const template = await page.getByTestId('script-source').inputValue();
  await run(page, template.replace('fn on_start() {', 'fn on_start() {\n    let x = ;'));
  const error = page.getByTestId('script-error');
  await error.waitFor();
  assert.match(await error.textContent(), /^Line \d+, column \d+: syntax error/);
  assert.ok(await page.getByTestId('script-error-mark').isVisible(), 'the place is underlined');
  await shot(page, 'script-editor-375-syntax');
  // An endless loop: the budget stops it at the first step that runs it, named.
  await run(page, template.replace('fn on_start() {', 'fn on_start() {\n    loop { }'));
  const fault = page.getByTestId('script-fault');
  await fault.waitFor();
  const why = await fault.textContent();
  assert.match(why, /budget/);
  assert.match(why, /on_start/);
  assert.match(why, /line \d+/);
  await shot(page, 'script-editor-375-fault');
  // The run so far survives: the page steps back to the start.
  await page.getByRole('button', { name: 'Step back' }).first().click();
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '0');
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a slow script is computed in slices: the page answers a click meanwhile and the run ends as usual', async () => {
  const { page, errors, context } = await editor('bully-worst-8');
  const template = await page.getByTestId('script-source').inputValue();
  // Every message costs the handler a long loop, within its budget of operations.
  const slow = template.replace('fn on_message(from, msg) {', 'fn on_message(from, msg) {\n    let i = 0;\n    while i < 150000 { i += 1; }');
  assert.notEqual(slow, template);
  await run(page, slow);
  const computing = page.locator('p.computing');
  await computing.waitFor();
  assert.match(await computing.textContent(), /^Computing the run… step \d+/);
  // While it computes, the language switch takes effect: the status itself is now in Chinese.
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => /正在计算运行/.test(document.querySelector('p.computing')?.textContent ?? ''));
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => /^Computing/.test(document.querySelector('p.computing')?.textContent ?? ''));
  // End goes to the end once it is computed, with the one leader the template elects.
  await page.keyboard.press('End');
  await computing.waitFor({ state: 'detached', timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('.invariants li[data-property="split-brain"]')?.className === 'ok');
  assert.ok(Number(await step(page)) > 8, 'the run went on');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a slow Bully with a node crashed late: Run puts the crash back in slices, the page answers meanwhile, End reaches the leader', async () => {
  const { page, errors, context } = await editor('bully-worst-8');
  const template = await page.getByTestId('script-source').inputValue();
  const slow = template.replace('fn on_message(from, msg) {', 'fn on_message(from, msg) {\n    let i = 0;\n    while i < 150000 { i += 1; }');
  // The built-in run to its end, then N1 crashed: a fault late in the run.
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.querySelectorAll('[data-node][data-role="leader"]:not([data-status="crashed"])').length === 1);
  const leader = await page.locator('[data-node][data-role="leader"]:not([data-status="crashed"])').getAttribute('data-node');
  await page.locator('[data-node="1"] .disc').click();
  await page.waitForFunction(() => document.querySelector('[data-node="1"]')?.dataset.status === 'crashed');
  const crashedAt = Number(await step(page));
  assert.ok(crashedAt > 8, `the crash is late (step ${crashedAt})`);
  await run(page, slow);
  const computing = page.locator('p.computing');
  await computing.waitFor();
  assert.match(await computing.textContent(), /^Computing the run… step \d+/);
  // While the run is rebuilt, the language switch takes effect.
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  // Once rebuilt, the script runs from the step Run was pressed at, the crash kept.
  await page.locator('.banner.notice', { hasText: 'Your script runs' }).waitFor({ timeout: 120000 });
  await page.waitForFunction(() => document.querySelector('[data-node="1"]')?.dataset.status === 'crashed');
  await page.keyboard.press('End');
  await computing.waitFor({ state: 'detached', timeout: 120000 });
  await page.waitForFunction((id) => {
    const live = [...document.querySelectorAll('[data-node][data-role="leader"]:not([data-status="crashed"])')];
    return live.length === 1 && live[0].dataset.node === id;
  }, leader, { timeout: 120000 });
  assert.ok(Number(await step(page)) >= crashedAt, 'End reaches the crash and past it');
  assert.deepEqual(errors, []);
  await context.close();
});
