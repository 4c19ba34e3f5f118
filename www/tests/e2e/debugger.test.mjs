// Step-through debugging in the page (issue 19): a breakpoint stops Play where the leaders change,
// the event log narrows to one node, and "Find a counterexample" runs the engine's search in a
// Web Worker — the result opens as a new run at the violating step; a long search shows its
// progress and Cancel ends it (the worker is terminated).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, step, liveLeaders, watchWorkers } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('a "leaders change" breakpoint stops Play at the step where the second leader appears', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-bully');
  assert.equal(await liveLeaders(page), 1, 'one leader at the start');
  // Cut {N1, N2} off from the rest by keyboard, as a student would.
  for (const id of ['1', '2']) {
    await page.locator(`[data-node="${id}"]`).focus();
    await page.keyboard.press('p');
  }
  await page.getByTestId('cut-side').click();
  await page.waitForSelector('[data-partition]');
  // The player hands the run to the workbench, which edits breakpoints: the same run, cut, at
  // the same step.
  const at0 = await step(page);
  await page.getByTestId('bp-open').click();
  await page.getByLabel('Add a breakpoint: stop when…').waitFor({ timeout: 60000 });
  assert.equal(await step(page), at0);
  assert.ok(await page.locator('[data-partition]').count() > 0, 'the cut is kept');
  await page.getByLabel('Add a breakpoint: stop when…').selectOption('leaders-change');
  await page.waitForSelector('[data-bp="leaders-change"]');
  await page.getByLabel('Speed').selectOption({ label: '30 ticks/s' });
  await page.getByRole('button', { name: 'Play' }).click();
  const hit = page.getByTestId('bp-hit');
  await hit.waitFor({ timeout: 20000 });
  await page.getByRole('button', { name: 'Play' }).waitFor();
  const at = await step(page);
  assert.match(await hit.textContent(), new RegExp(`^Stopped at step ${at} \\(t=\\d+\\): leaders-change`));
  assert.equal(await liveLeaders(page), 2, 'two leaders at the hit');
  await shot(page, 'debugger-breakpoint-hit');
  // One step earlier there was one: the hit is the step the second leader appeared.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.equal(await step(page), at - 1);
  assert.equal(await liveLeaders(page), 1, 'one leader the step before');
  assert.deepEqual(errors, []);
  await context.close();
});

// The workbench's wasm and glue, named by a hash of their content.
const WORKBENCH_WASM = /election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/;
// A link that carries a breakpoint (the page writes them as `until=`), at step 7.
const BP_LINK = '?preset=bully-heartbeats&step=7&until=time%3E%3D60';

test('a link that carries a breakpoint opens at its step through the loading step, and Play stops at the hit', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  // The workbench's wasm is held back until the page has said that it loads.
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(WORKBENCH_WASM, async (route) => { await held; await route.continue(); });
  await page.goto(server.url + BP_LINK);
  await page.locator('.banner.notice', { hasText: 'Loading the workbench' }).waitFor();
  release();
  await page.waitForSelector('[data-bp="time>=60"]', { timeout: 60000 });
  assert.equal(await step(page), 7, 'the link\'s step');
  assert.match(await page.evaluate(() => location.search), /until=time%3E%3D60/);
  await page.getByRole('button', { name: 'Play' }).click();
  const hit = page.getByTestId('bp-hit');
  await hit.waitFor({ timeout: 20000 });
  await page.getByRole('button', { name: 'Play' }).waitFor();
  const at = await step(page);
  const [, t] = (await hit.textContent()).match(new RegExp(`^Stopped at step ${at} \\(t=(\\d+)\\): time>=60`)) ?? [];
  assert.ok(Number(t) >= 60 && Number(await page.getByTestId('time').textContent()) === Number(t), `the hit at t ≥ 60: ${t}`);
  // The step before was earlier than the breakpoint's time: Play stopped at the first hit.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.ok(Number(await page.getByTestId('time').textContent()) < 60);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a breakpoint link whose workbench cannot be loaded is named, and the run goes on at its step', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route(WORKBENCH_WASM, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(server.url + BP_LINK);
  const alert = page.locator('.banner.error', { hasText: 'The workbench could not be loaded' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /404/);
  assert.equal(await step(page), 7, 'the link\'s run at its step');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '8');
  // In Chinese too.
  await page.keyboard.press('l');
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.getByTestId('bp-open').click();
  await page.locator('.banner.error', { hasText: '工作台' }).waitFor();
  assert.equal(await step(page), 8);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the event-log filter by node keeps only that node\'s events', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-bully&step=60');
  const rows = page.locator('.log li[data-ev-node]');
  const involves = (n) => rows.evaluateAll((els, n) => els.map((e) => e.dataset.evNode === n || e.dataset.evPeer === n), n);
  const before = await involves('3');
  assert.ok(before.includes(false), 'unfiltered, the log shows other nodes\' events too');
  await page.getByTestId('log-node').selectOption('3');
  await page.waitForFunction(() => location.search.includes('log=node:3'));
  const after = await involves('3');
  assert.ok(after.length > 0, 'N3 has events near this step');
  assert.ok(after.every(Boolean), 'every row left is N3\'s (it acts or is the peer)');
  assert.equal(await page.locator('.log li.iv').count(), 0, 'notes are not a node\'s events');
  await shot(page, 'debugger-log-filter');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Find a counterexample on Bully\'s single leader opens a run at the violation, in a worker loaded on demand', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-bully');
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.waitForLoadState('networkidle');
  assert.ok(!fetched.some((p) => p.includes('lab-worker')), 'the worker is not part of the first load');
  assert.equal(await liveLeaders(page), 1);
  // Keyboard: focus the button and press Enter.
  const find = page.getByRole('button', { name: 'Find a counterexample to Single leader' });
  await find.focus();
  await page.keyboard.press('Enter');
  const status = page.locator('[data-testid="search"][data-status="found"]');
  await status.waitFor({ timeout: 30000 });
  assert.ok(fetched.some((p) => /lab-worker-[0-9a-f]{16}_bg\.wasm$/.test(p)), 'the worker\'s wasm was fetched when the search started');
  const found = Number(await status.locator('p[data-step]').getAttribute('data-step'));
  // What the shrunk schedule changed of the scenario is said.
  assert.match(await status.getByTestId('search-changes').textContent(), /^Shrunk: faults \d+ → \d+; deferred deliveries \d+ → \d+/);
  assert.equal(await step(page), found, 'the new run stands at the violating step');
  assert.ok(!new URL(page.url()).searchParams.has('preset'), 'a new run, not the preset');
  const row = page.locator('.invariants li[data-property="split-brain"]');
  assert.equal(await row.getAttribute('class'), 'bad');
  assert.match(await row.textContent(), /no: now leading: N\d+, N\d+/, 'violated at the current step');
  assert.equal(await liveLeaders(page), 2);
  await shot(page, 'debugger-counterexample');
  // The step before, one leader: the violation begins at the step opened.
  await page.getByRole('button', { name: 'Step back' }).click();
  assert.equal(await liveLeaders(page), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a long search shows its progress advancing, and Cancel stops it (in Chinese too)', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-raft&lang=zh');
  const workers = watchWorkers(page);
  await page.getByRole('button', { name: '寻找反例：每个任期至多一个领导者' }).click();
  const bar = page.getByRole('progressbar', { name: '反例搜索' });
  await bar.waitFor();
  const at = async () => Number(await bar.getAttribute('data-steps'));
  await page.waitForFunction(() => Number(document.querySelector('progress')?.dataset.steps) > 0, null, { timeout: 20000 });
  const first = await at();
  await page.waitForFunction((f) => Number(document.querySelector('progress')?.dataset.steps) > f, first, { timeout: 20000 });
  assert.ok(await at() > first, 'the bar advances');
  assert.equal(workers.length, 1, 'one worker runs the search');
  await shot(page, 'debugger-search-progress');
  const closed = new Promise((ok) => workers[0].on('close', ok));
  await page.getByTestId('search-cancel').click();
  await closed;
  const status = page.locator('[data-testid="search"]');
  assert.equal(await status.getAttribute('data-status'), 'cancelled');
  assert.match(await status.textContent(), /搜索已取消，此前已尝试 \d+ 个调度，\d+ 个不同状态/);
  assert.equal(await page.locator('progress').count(), 0, 'the bar is gone');
  assert.equal(await page.getByTestId('find-two-leaders-in-term').isEnabled(), true, 'another search may start');
  await shot(page, 'debugger-search-cancelled');
  assert.deepEqual(errors, []);
  await context.close();
});
