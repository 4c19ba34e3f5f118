// Step-through debugging in the page (issue 19): a second trace imported beside the run shown
// is compared in two lanes with the divergence `election-lab diff` finds; a row of the
// experiments view's table of runs opens that run at its violation; the watch panel draws a
// value of the inspector for every node, agreeing with the inspector at the cursor.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, shot, cli } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('a second trace imported is compared with the current run, the divergence marked', async () => {
  const { page, errors } = await open(browser, `${server.url}?preset=bully-heartbeats&step=30`);
  const scenario = JSON.parse(cli('preset', 'bully-heartbeats'));
  // The same scenario with N5 crashed at step 10.
  const trace = { scenario, interventions: [{ step: 10, crash: 5 }], step: 30 };
  const dir = await mkdtemp(join(tmpdir(), 'import-'));
  const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
  await writeFile(a, JSON.stringify(scenario));
  await writeFile(b, JSON.stringify({ ...trace, step: 1e6 }));
  const want = JSON.parse(cli('diff', '--json', a, b)).first;
  assert.ok(want);

  await page.getByTestId('import').setInputFiles({ name: 'crash.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(trace)) });
  await page.getByTestId('fork-offer').waitFor();
  await page.getByTestId('fork').click();
  await page.locator('section.lane').nth(1).waitFor();
  assert.deepEqual(await page.locator('section.lane').evaluateAll((ls) => ls.map((l) => l.dataset.role)), ['Current', 'Imported']);
  assert.equal(Number(await page.getByTestId('divergence').getAttribute('data-time')), want.time);
  const steps = await page.getByTestId('lane-divergence').evaluateAll((ls) => ls.map((l) => Number(l.dataset.step)));
  assert.deepEqual(steps, [want.step_a, want.step_b]);
  await shot(page, 'import-compare');
  assert.deepEqual(errors, []);
});

test('the watch panel follows a value of the inspector on every node, with the cursor', async () => {
  const { page, errors } = await open(browser, `${server.url}?preset=raft-cold&step=120`);
  // The player offers the values; the sparklines are the workbench's, loaded when one is chosen
  // (its wasm held back until the page has said that it loads).
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(/election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  const select = page.getByTestId('watch-key');
  // Options name fields by their id (the value) and label (the text).
  const options = await select.locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
  const [term, label] = options.find(([id]) => id === 'current_term') ?? [];
  assert.equal(label, 'current term', `the inspector's fields are offered: ${options}`);
  await select.selectOption(term);
  await page.locator('.banner.notice', { hasText: 'Loading the workbench' }).waitFor();
  release();
  const rows = page.locator('[data-node-watch]');
  await rows.first().waitFor();
  assert.equal(await page.getByTestId('step').textContent(), '120', 'the same run at the same step');
  assert.equal(await page.getByTestId('watch-key').inputValue(), term);
  assert.equal(await rows.count(), await page.locator('[data-node]').count());
  const first = rows.first();
  const id = await first.getAttribute('data-node-watch');
  // The value at the cursor is the inspector's.
  await page.locator(`[data-node="${id}"]`).hover();
  const shown = await page.locator(`.panel dl.kv dt[data-field="${term}"]`).first().locator('xpath=following-sibling::dd[1]').innerText();
  assert.equal(await first.getAttribute('data-value'), shown);
  assert.match(await first.getAttribute('aria-label'), new RegExp(`N${id} · ${label}: ${shown}`));
  assert.ok(await first.locator('path.spark-line').getAttribute('d'));
  assert.equal(await page.locator('.spark-legend').count(), 1);
  await page.getByTestId('watch').screenshot({ path: join(dirname(fileURLToPath(import.meta.url)), 'screenshots', 'watch.png') });
  await page.keyboard.press('l');
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  assert.match(await page.getByTestId('watch').innerText(), /跟踪/);
  assert.deepEqual(errors, []);
});

test('a JSON Lines trace pasted in the player is read by the workbench, through its loading step', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'jsonl-'));
  const [scenario, out] = [join(dir, 'ring.json'), join(dir, 'ring.jsonl')];
  await writeFile(scenario, cli('preset', 'ring-best'));
  cli('run', scenario, '--trace', out);
  const lines = await readFile(out, 'utf8');
  const header = JSON.parse(lines.split('\n')[0]);
  const { page, errors } = await open(browser, `${server.url}?preset=bully-heartbeats`);
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(/election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.locator('summary', { hasText: 'Scenario / trace JSON' }).click();
  await page.getByLabel('Scenario JSON').fill(lines);
  await page.getByRole('button', { name: 'Load this JSON' }).click();
  await page.locator('.banner.notice', { hasText: 'Loading the workbench' }).waitFor();
  release();
  await page.locator('.banner.notice', { hasText: 'Imported.' }).waitFor();
  assert.equal(await page.getByTestId('step').textContent(), String(header.step));
  assert.equal(await page.locator('[data-node]').count(), header.scenario.nodes.length);
  assert.deepEqual(errors, []);
});

test('a row of the runs table opens that run in the lab at its violation', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const p = await context.newPage();
  const errs = [];
  p.on('pageerror', (e) => errs.push(String(e)));
  await p.goto(`${server.url}?experiment=split-brain-random-partitions`);
  await p.getByTestId('experiment-trials').fill('2');
  await p.getByTestId('experiment-run').click();
  await p.getByTestId('experiment-status').waitFor({ timeout: 60_000 });
  const bad = p.locator('[data-testid=experiment-runs] tbody tr:not([data-violations="0"])');
  assert.ok(await bad.count() > 0, 'a run with a split brain');
  await bad.first().scrollIntoViewIfNeeded();
  await p.getByTestId('experiment-runs').screenshot({ path: join(dirname(fileURLToPath(import.meta.url)), 'screenshots', 'experiment-runs.png') });
  await bad.first().getByTestId('open-run').click();
  await p.waitForSelector('[data-node]:not(#first-frame *)');
  const cursor = await p.locator('.timeline input[type=range]').inputValue();
  const marks = await p.locator('.markers .marker.violation').evaluateAll((ms) => ms.map((m) => m.dataset.step));
  assert.ok(marks.includes(cursor), `the cursor (${cursor}) is at a violation (${marks})`);
  assert.deepEqual(errs, []);
});
