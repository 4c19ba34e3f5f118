// An assignment graded in the page (issue 26): `?assignment=bully` in a fresh player loads the
// workbench and opens the editor on the assignment's skeleton beside its checks; Grade runs them
// in the worker and the skeleton fails; the student's script, typed into the editor, reaches full
// marks; the downloaded JSON report is the CLI's for the same script; a host page that frames the
// lab hears the report by postMessage; a failure opens its run at the failing step; axe-core
// finds nothing serious; screenshots at 375 and 1280 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, shot, axe } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// The student's answer: the reference Bully under an id of its own.
const ANSWER = readFileSync(join(root, 'crate/scripts/bully.rhai'), 'utf8').replace('id: "bully-script"', 'id: "my-bully"');

/** `election-lab grade crate/assignments/bully.json FILE --out DIR` (this checkout's build). */
function cliReport(source) {
  const dir = mkdtempSync(join(tmpdir(), 'grade-'));
  const file = join(dir, 'bully.rhai');
  writeFileSync(file, source);
  const args = ['run', '--quiet', '--offline', '-p', 'election-lab', '--', 'grade', 'crate/assignments/bully.json', file, '--out', join(dir, 'out')];
  execFileSync('cargo', args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(readFileSync(join(dir, 'out', 'bully.json'), 'utf8'));
}

test('the skeleton fails, the typed answer passes, and the report is the CLI\'s', async () => {
  const { page, errors, context } = await open(browser, server.url + '?assignment=bully');
  // The player hands the link to the workbench, which opens the assignment.
  await page.getByTestId('assignment').waitFor({ timeout: 120_000 });
  const skeleton = await page.getByTestId('script-source').inputValue();
  assert.match(skeleton, /TODO/, 'the skeleton is in the editor');
  assert.equal(await page.getByTestId('grade-check').count(), 5, 'the five checks are listed before grading');
  // The skeleton: graded in the worker, with progress, and failing.
  await page.getByTestId('assignment-grade').click();
  await page.getByRole('progressbar', { name: 'Grading' }).waitFor();
  await page.getByTestId('grade-score').waitFor({ timeout: 300_000 });
  const failing = Number(await page.getByTestId('grade-score').getAttribute('data-score'));
  assert.ok(failing < 10, `the skeleton does not pass: ${failing}`);
  assert.ok(await page.locator('[data-testid=grade-check][data-passed=false]').count() >= 1);
  await shot(page, 'assignment-1280-failing');
  // A failure with a run opens it at its step.
  assert.ok(await page.getByTestId('grade-open-failure').count() >= 1, 'a failure shows in a run');
  const open1 = page.getByTestId('grade-open-failure').first();
  const at = Number((await open1.textContent()).match(/\d+/)[0]);
  await open1.click();
  await page.waitForFunction((s) => document.querySelector('[data-testid=step]')?.textContent === String(s), at);
  // The answer, typed into the editor with the keyboard: everything selected, then replaced.
  const editor = page.getByTestId('script-source');
  await editor.focus();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(ANSWER);
  await page.keyboard.type('\n// graded in the page\n');
  const typed = await editor.inputValue();
  assert.ok(typed.includes('id: "my-bully"') && typed.endsWith('// graded in the page\n'), 'the editor holds the typed answer');
  await page.getByTestId('assignment-grade').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=grade-score]')?.getAttribute('data-score') === '10',
    null, { timeout: 300_000 });
  assert.equal(await page.locator('[data-testid=grade-check][data-passed=true]').count(), 5, 'every check passes');
  await shot(page, 'assignment-1280-passing');
  assert.deepEqual(await axe(page), [], 'axe-core finds nothing serious with the checklist shown');
  // The report, downloaded: the CLI's for the same script (links aside: they name the page).
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('grade-download').click()]);
  const report = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(report.format, 'election-lab-grade/1');
  assert.equal(report.score, 10);
  assert.equal(report.max, 10);
  const cli = cliReport(typed);
  const strip = (r) => ({ ...r, student: null, checks: r.checks.map((c) => ({ ...c, link: c.link ? 'link' : null })) });
  assert.deepEqual(strip(report), strip(cli), 'the page\'s report is the CLI\'s');
  // Printed: only the checklist shows on paper.
  await page.emulateMedia({ media: 'print' });
  assert.ok(await page.getByTestId('grade-checklist').isVisible());
  assert.equal(await page.locator('.scenario-bar').evaluate((e) => getComputedStyle(e).visibility), 'hidden');
  await page.emulateMedia({ media: 'screen' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('at 375 px, and a host page hears the report by postMessage', async () => {
  const src = `${server.url}?assignment=bully`;
  const other = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!DOCTYPE html><html lang="en"><title>course</title><iframe id="lab" title="lab" src="${src}" width="375" height="812"></iframe></html>`);
  });
  await new Promise((ok) => other.listen(0, '127.0.0.1', ok));
  const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  await context.addInitScript(() => {
    window.__grades = [];
    window.addEventListener('message', (e) => { if (e.data && e.data.type === 'election-lab:grade') window.__grades.push(e.data.report); });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${other.address().port}/`);
  const lab = page.frameLocator('#lab');
  await lab.getByTestId('assignment').waitFor({ timeout: 120_000 });
  await lab.getByTestId('assignment-grade').click();
  await lab.getByTestId('grade-score').waitFor({ timeout: 300_000 });
  await page.waitForFunction(() => window.__grades.length === 1);
  const [report] = await page.evaluate(() => window.__grades);
  assert.equal(report.format, 'election-lab-grade/1');
  assert.equal(report.assignment, 'bully');
  assert.equal(report.max, 10);
  assert.ok(report.score < 10);
  assert.equal(report.checks.length, 5);
  assert.deepEqual(errors, []);
  await context.close();
  await new Promise((ok) => other.close(ok));
  // The panel at phone width, on its own.
  const phone = await open(browser, src, { width: 375, height: 812 });
  await phone.page.getByTestId('assignment').waitFor({ timeout: 120_000 });
  await phone.page.getByTestId('assignment-grade').click();
  await phone.page.getByTestId('grade-score').waitFor({ timeout: 300_000 });
  await phone.page.getByTestId('assignment').scrollIntoViewIfNeeded();
  await shot(phone.page, 'assignment-375');
  assert.deepEqual(await axe(phone.page), []);
  assert.deepEqual(phone.errors, []);
  await phone.context.close();
});

test('a slow script\'s failure opens in slices: the page answers meanwhile and lands at the failing step', async () => {
  const { page, errors, context } = await open(browser, `${server.url}?assignment=bully`);
  await page.getByTestId('script-editor').waitFor();
  // The skeleton, each message costing its handler a long loop (within its budget).
  const skeleton = await page.getByTestId('script-source').inputValue();
  const slow = skeleton.replace('fn on_message(from, msg) {', 'fn on_message(from, msg) {\n    let i = 0;\n    while i < 100000 { i += 1; }');
  assert.notEqual(slow, skeleton);
  await page.getByTestId('script-source').fill(slow);
  await page.getByTestId('assignment-grade').click();
  await page.getByTestId('grade-score').waitFor({ timeout: 300_000 });
  const failure = page.getByTestId('grade-open-failure').first();
  await failure.waitFor();
  const at = Number((await failure.textContent()).match(/\d+/)[0]);
  await failure.click();
  // The language switch takes effect while the run is rebuilt (or at once if it is quick).
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
  await page.waitForFunction((s) => document.querySelector('[data-testid=step]')?.textContent === String(s), at, { timeout: 120_000 });
  await page.locator('p.computing').waitFor({ state: 'detached', timeout: 120_000 });
  assert.equal(await page.locator('[data-testid=step]').textContent(), String(at), 'it stays at the failing step');
  assert.deepEqual(errors, []);
  await context.close();
});
