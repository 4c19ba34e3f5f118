// The player and the workbench (ARCHITECTURE.md, "Two bundles"): a fresh page loads the player
// only; a workbench tool asked for in it says that the workbench loads, then opens on the same
// run; a workbench that cannot be loaded is named in an alert and the player goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, NOT_IN_PLAYER } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// Named by a hash of their content (scripts/hashnames.mjs), as the page's own files are.
const WORKBENCH = /election-lab-workbench-[0-9a-f]{16}(_bg\.wasm|\.js)$/;

test('a tool opens the workbench on the same run, saying that it loads meanwhile', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  const asked = [];
  page.on('request', (r) => { if (WORKBENCH.test(new URL(r.url()).pathname)) asked.push(r.url()); });
  // The workbench's wasm is held back until the page has said that it loads.
  let release;
  const held = new Promise((ok) => { release = ok; });
  await page.route(/election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.goto(server.url + '?preset=bully-heartbeats&step=7');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.waitForLoadState('networkidle');
  assert.deepEqual(asked, [], 'the first load fetches nothing of the workbench');
  const t0 = Date.now();
  await page.getByTestId('open-experiments').click();
  await page.locator('.banner.notice', { hasText: 'Loading the workbench' }).waitFor();
  release();
  await page.getByTestId('experiments').waitFor();
  console.log(`click → experiments view: ${Date.now() - t0} ms (localhost, the wasm held until the notice was seen)`);
  assert.ok(asked.length >= 2, 'the workbench\'s glue and wasm were fetched');
  // Back to the simulator: the same run at the same step, now in the workbench.
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  assert.equal(await page.getByTestId('step').textContent(), '7');
  assert.match(await page.evaluate(() => location.search), /preset=bully-heartbeats/);
  // One app on the page: one canvas, and the keyboard steps once.
  assert.equal(await page.locator('.lab').count(), 1);
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '8');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a workbench that cannot be loaded is named, and the player goes on', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-heartbeats');
  await page.route(/election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.getByTestId('open-experiments').click();
  const alert = page.locator('.banner.error', { hasText: 'The workbench could not be loaded' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /404/);
  // The player still runs: the canvas is there and a step forward is taken.
  assert.ok(await page.locator('[data-node]').count() > 0);
  const before = Number(await page.getByTestId('step').textContent());
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=step]')?.textContent) === b + 1, before);
  // Asking again tries again (here it works).
  await page.unroute(/election-lab-workbench-[0-9a-f]{16}_bg\.wasm$/);
  await page.getByTestId('open-experiments').click();
  await page.getByTestId('experiments').waitFor();
  assert.deepEqual(errors.filter((e) => !/404|Failed to load resource/.test(e)), []);
  await context.close();
});

test('a workbench text shown by the player is an error in every test (the guard can fail)', async () => {
  // The player is built without the workbench's texts (crate/i18n/workbench.txt): such a key
  // reads as a marker there, and every page the tests open reports the marker as a console error.
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-heartbeats');
  assert.deepEqual(errors, []);
  const reported = page.waitForEvent('console', (m) => m.type() === 'error' && m.text().includes('workbench text'));
  await page.evaluate((marker) => {
    const p = document.createElement('p');
    p.textContent = `Loading ${marker}`;
    document.querySelector('main').append(p);
  }, NOT_IN_PLAYER);
  await reported;
  assert.equal(errors.length, 1, errors.join('\n'));
  const title = page.waitForEvent('console', (m) => m.type() === 'error' && m.text().includes('workbench text'));
  await page.evaluate((marker) => document.querySelector('[data-node]').setAttribute('aria-label', marker), NOT_IN_PLAYER);
  await title;
  await context.close();
});
