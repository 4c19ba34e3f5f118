// The experiments view: opened from the header, a sweep runs in the page's Web Worker (loaded
// only then) with a progress bar and can be cancelled (the worker ends); a finished sweep's downloads (summary CSV, per-run CSV, SVG plot) equal what
// `election-lab sweep` writes for the same spec; `?experiment=<id>&lang=zh` opens it in Chinese;
// an unknown id is named in a notice and the simulator still works; the view fits 375 px.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, shot, watchWorkers } from './harness.mjs';

/** Like the harness's `open`, for a link that opens the experiments view (no nodes drawn). */
async function openView(browser, url, viewport = { width: 1280, height: 860 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.getByTestId('experiments').waitFor();
  // A Chinese page shows English until its catalog (zh.json) has arrived: wait for the switch.
  if (/[?&]lang=zh/.test(url)) await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  return { page, errors };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'expview-e2e-'));
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** `election-lab sweep FILE args...` (the native build of this checkout); its standard output. */
function cli(file, ...args) {
  return execFileSync('cargo', ['run', '--quiet', '--offline', '-p', 'election-lab', '--', 'sweep', file, ...args],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
}

/** The ready-made spec `id` with `trials` seeds for every line without its own count: the
 *  change the page's trial field makes, written here independently of the page. */
function specFile(id, trials) {
  const spec = JSON.parse(readFileSync(join(root, 'experiments', `${id}.json`), 'utf8'));
  spec.seeds = { ...(spec.seeds || {}), count: trials };
  const file = join(work, `${id}-${trials}.json`);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

/** Waits for `n` animation frames of the page. */
const frames = (page, n) => page.evaluate((n) => new Promise((done) => {
  let k = 0;
  const tick = () => { if (++k < n) requestAnimationFrame(tick); else done(k); };
  requestAnimationFrame(tick);
}), n);

const progress = async (page) => {
  const bar = page.getByTestId('experiment-progress');
  return { now: Number(await bar.getAttribute('aria-valuenow')), max: Number(await bar.getAttribute('aria-valuemax')) };
};

/** The text of a file downloaded by clicking `testid`, and its suggested name. */
async function download(page, testid) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()]);
  return { name: d.suggestedFilename(), text: readFileSync(await d.path(), 'utf8') };
}

test('a sweep runs in a worker, shows its progress, can be cancelled, and Escape goes back to the simulator as it was', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst');
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  const workers = watchWorkers(page);
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByTestId('step').textContent(), '3');
  await page.getByTestId('open-experiments').click();
  const view = page.getByTestId('experiments');
  await view.waitFor();
  assert.match(page.url(), /experiment=messages-vs-n/, 'the address opens the view again');
  await page.locator('button[data-experiment="raft-figure-16-randomness"]').click();
  assert.match(await page.getByTestId('experiment-title').textContent(), /^Raft, 5 servers/);
  assert.match(page.url(), /experiment=raft-figure-16-randomness/);
  const trials = page.getByTestId('experiment-trials');
  assert.equal(await trials.inputValue(), '1000', 'the spec\'s own trial count');
  assert.equal(await page.getByTestId('experiment-total').textContent(), String(100 + 5 * 1000));

  // Bad input: a clear message naming the field, and nothing to run.
  for (const bad of ['abc', '0', '20000']) {
    await trials.fill(bad);
    assert.match(await page.getByTestId('experiment-error').textContent(), /^Trials per line: enter a whole number from 1 to 10000/);
    assert.ok(await page.getByTestId('experiment-run').isDisabled());
  }
  // A broken spec: the message names the field; restoring the ready-made spec clears it.
  await trials.fill('10');
  await page.locator('details.exp-spec summary').click();
  const spec = page.getByTestId('experiment-spec');
  const original = await spec.inputValue();
  await spec.fill(original.replace('"measure": "downtime"', '"measure": "speed"'));
  assert.match(await page.getByTestId('experiment-error').textContent(), /^Spec \(JSON\): measure: unknown measure 'speed'/);
  assert.ok(await page.getByTestId('experiment-run').isDisabled());
  await spec.fill('{"title": ');
  assert.match(await page.getByTestId('experiment-error').textContent(), /^Spec \(JSON\): not valid JSON/);
  await page.getByRole('button', { name: 'Restore the ready-made spec' }).click();
  assert.equal(await spec.inputValue(), original);
  await page.locator('details.exp-spec summary').click();
  await trials.fill('10000');
  assert.equal(await page.getByTestId('experiment-error').count(), 0);
  assert.equal(await page.getByTestId('experiment-total').textContent(), String(100 + 5 * 10000));

  assert.ok(!fetched.some((p) => p.includes('lab-worker')), 'the worker is not loaded before a sweep runs');
  assert.equal(workers.length, 0);
  await page.getByTestId('experiment-run').click();
  await page.getByTestId('experiment-progress').waitFor();
  // The bar part-way: a count above 0 and below its end (waited for, not slept for).
  await page.waitForFunction(() => {
    const bar = document.querySelector('[data-testid="experiment-progress"]');
    const now = Number(bar?.getAttribute('aria-valuenow'));
    return now > 0 && now < Number(bar.getAttribute('aria-valuemax'));
  });
  const seen = await progress(page);
  assert.ok(fetched.some((p) => p.endsWith('/lab-worker_loader.js')), 'the worker\'s loader was requested by Run');
  assert.ok(fetched.some((p) => /\/lab-worker-[0-9a-f]{16}_bg\.wasm$/.test(p)), 'and its wasm');
  assert.equal(workers.length, 1, 'one worker runs the sweep');
  assert.equal(seen.max, 50100);
  assert.match(await page.locator('.exp-count').textContent(), /^\d+ \/ 50100 runs$/);
  // Responsive while it runs: 30 animation frames come, and the sweep advances between the first and the last
  // (how long the frames take is a benchmark's business: www/tests/bench/experiments-view.mjs).
  const before = (await progress(page)).now;
  assert.equal(await frames(page, 30), 30, 'frames keep coming while the sweep runs');
  assert.ok((await progress(page)).now > before, 'and the sweep advanced meanwhile');
  assert.ok((await progress(page)).now < 50100, 'still running');
  await shot(page, 'experiments-running');

  const closed = new Promise((ok) => workers[0].on('close', ok));
  await page.getByTestId('experiment-cancel').click();
  await closed;
  const stopped = (await progress(page)).now;
  assert.ok(stopped > 0 && stopped < 50100, `stopped part-way (${stopped})`);
  assert.equal(await page.getByTestId('experiment-status').textContent(), `Cancelled after ${stopped} of 50100 runs.`);
  // Thirty animation frames later (the page renders what arrives once a frame) the count stands.
  await frames(page, 30);
  assert.equal((await progress(page)).now, stopped, 'nothing runs after Cancel');
  assert.equal(await page.getByTestId('experiment-cancel').count(), 0);
  assert.equal(await page.getByTestId('experiment-run').textContent(), 'Run again');
  assert.equal(await page.getByTestId('experiment-plot').count(), 0, 'no plot of a cancelled sweep');

  // Run again starts over; Escape leaves in the middle, and the worker ends with the view.
  await page.getByTestId('experiment-run').click();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="experiment-progress"]')?.getAttribute('aria-valuenow')) > 0);
  assert.equal(await page.getByTestId('experiment-status').count(), 0, 'the cancelled sweep\'s status is gone: a new sweep runs');
  assert.equal((await progress(page)).max, 50100);
  assert.equal(workers.length, 2, 'a new worker for the new sweep');
  const left = new Promise((ok) => workers[1].on('close', ok));
  await page.keyboard.press('Escape');
  await left;
  assert.equal(await view.count(), 0);
  assert.equal(await page.getByTestId('step').textContent(), '3', 'the simulator as it was left');
  assert.doesNotMatch(page.url(), /experiment=/);
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByTestId('step').textContent(), '4');
  // X opens the view again, fresh; the Close button also goes back.
  await page.keyboard.press('x');
  await view.waitFor();
  assert.equal(await page.getByTestId('experiment-progress').count(), 0);
  assert.equal(workers.length, 2, 'no sweep runs in the view opened again');
  await page.getByTestId('experiments-close').click();
  assert.equal(await view.count(), 0);
  assert.deepEqual(errors, []);
});

test('a finished sweep downloads the same CSV and SVG as the command line', async () => {
  const { page, errors } = await openView(browser, server.url + '?experiment=one-partition');
  for (const [id, trials] of [['one-partition', 5], ['raft-figure-16-randomness', 4]]) {
    await page.locator(`button[data-experiment="${id}"]`).click();
    await page.getByTestId('experiment-trials').fill(String(trials));
    await page.getByTestId('experiment-run').click();
    await page.getByTestId('experiment-plot').waitFor({ timeout: 60000 });
    const { now, max } = await progress(page);
    assert.equal(now, max);
    assert.match(await page.getByTestId('experiment-status').textContent(), new RegExp(`^Finished: ${max} runs in \\d+\\.\\d\\d s\\.$`));
    assert.ok(await page.locator('[data-testid="experiment-plot"] svg').count() === 1, 'the plot is drawn');
    assert.ok(await page.locator('[data-testid="experiment-summary"] tbody tr').count() >= 1, 'the summary table');

    if (id === 'one-partition') {
      await page.getByTestId('experiment-plot').scrollIntoViewIfNeeded();
      await shot(page, 'experiments-finished');
    }
    const file = specFile(id, trials);
    const summary = await download(page, 'experiment-download-csv');
    assert.equal(summary.name, `${id}.csv`);
    assert.equal(summary.text, cli(file, '--summary'), `${id}: summary CSV`);
    const runs = await download(page, 'experiment-download-runs');
    assert.equal(runs.name, `${id}-runs.csv`);
    const perRun = cli(file, '--svg', join(work, `${id}.svg`));
    assert.equal(runs.text, perRun, `${id}: per-run CSV`);
    assert.equal(runs.text.trim().split('\n').length - 1, max, 'one row per run');
    const svg = await download(page, 'experiment-download-svg');
    assert.equal(svg.name, `${id}.svg`);
    assert.ok(svg.text.startsWith('<svg'));
    assert.equal(svg.text, readFileSync(join(work, `${id}.svg`), 'utf8'), `${id}: the plot`);
  }
  assert.deepEqual(errors, []);
});

test('?experiment=<id>&lang=zh opens the view in Chinese, plot included', async () => {
  const { page, errors } = await openView(browser, server.url + '?experiment=raft-figure-16-randomness&lang=zh');
  await page.getByTestId('experiments').waitFor();
  assert.equal(await page.locator('.experiments h2').textContent(), '实验');
  assert.match(await page.getByTestId('experiment-title').textContent(), /^Raft，5 台服务器/);
  assert.equal(await page.getByTestId('experiment-run').textContent(), '运行');
  await page.getByTestId('experiment-trials').fill('x');
  assert.match(await page.getByTestId('experiment-error').textContent(), /^每条数据系列的试验次数/);
  await page.getByTestId('experiment-trials').fill('20');
  await page.getByTestId('experiment-run').click();
  await page.getByTestId('experiment-plot').waitFor({ timeout: 60000 });
  assert.match(await page.getByTestId('experiment-status').textContent(), /^完成：200 次运行，用时/);
  const plot = await page.getByTestId('experiment-plot').innerHTML();
  assert.ok(plot.includes('无领导者的时间'), 'the axis in Chinese');
  assert.equal(await page.getByTestId('experiment-download-svg').textContent(), '下载 SVG');
  await shot(page, 'experiments-zh');
  // The language switch redraws the plot in English.
  await page.getByTestId('lang').click();
  assert.ok((await page.getByTestId('experiment-plot').innerHTML()).includes('time without a leader'));
  assert.deepEqual(errors, []);
});

test('an unknown experiment is named in a notice and the simulator still works', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst&experiment=nope');
  // The player hands the link to the workbench, which names the experiment it does not know:
  // wait for that notice (the loading notice comes first).
  await page.locator('.banner.notice', { hasText: /no ready-made experiment named 'nope'/ }).waitFor();
  assert.equal(await page.getByTestId('experiments').count(), 0);
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByTestId('step').textContent(), '1');
  assert.deepEqual(errors, []);
});

test('the view fits a 375 px wide screen', async () => {
  const { page, errors } = await openView(browser, server.url + '?experiment=split-brain-random-partitions', { width: 375, height: 800 });
  await page.getByTestId('experiment-trials').fill('3');
  await page.getByTestId('experiment-run').click();
  await page.getByTestId('experiment-plot').waitFor({ timeout: 60000 });
  const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(over <= 0, `no sideways scrolling of the page (${over} px over)`);
  const plot = await page.getByTestId('experiment-plot').boundingBox();
  assert.ok(plot.width <= 375 && plot.width > 300, `the plot's box fits (${plot.width} px)`);
  const drawn = await page.locator('[data-testid="experiment-plot"] svg').boundingBox();
  assert.ok(drawn.width >= 600, `the plot keeps a readable size and scrolls in its box (${drawn.width} px)`);
  await page.getByTestId('experiment-plot').scrollIntoViewIfNeeded();
  await shot(page, 'experiments-375');
  assert.deepEqual(errors, []);
});
