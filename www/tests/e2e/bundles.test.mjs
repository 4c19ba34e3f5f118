// The page's bundles (index.html, www/src/bundle.rs): the chooser starts the Bully player for a
// Bully link (the default page, an embed) and the full player for anything else (another family,
// a lesson); picking another family's preset in the Bully player loads the full player while the
// run goes on, then starts it on that preset; a full player that cannot be loaded is named in an
// alert and the Bully run goes on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The preset picker (its accessible name in English and in Chinese). */
const PICKER = 'select[aria-label="Preset"], select[aria-label="预设"]';
const PLAYER_WASM = /election-lab-www-[0-9a-f]{16}_bg\.wasm$/;

/** Which players' wasm the page has fetched so far ('bully', 'www'). */
const players = (page) => page.evaluate(() => performance.getEntriesByType('resource')
  .map((r) => new URL(r.name).pathname.match(/election-lab-(bully|www)-[0-9a-f]+_bg\.wasm$/)?.[1])
  .filter(Boolean));

test('the default page and a Bully embed load the Bully player only', async () => {
  for (const query of ['?preset=bully-heartbeats&lang=en', '?preset=bully-heartbeats&embed=1&lang=en']) {
    const { page, errors, context } = await open(browser, server.url + query);
    assert.deepEqual(await players(page), ['bully'], query);
    assert.ok(await page.locator('[data-node]').count() > 0);
    assert.deepEqual(errors, [], query);
    await context.close();
  }
});

test('a Raft link and a lesson load the full player, which draws them', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=raft-cold&lang=en');
  assert.deepEqual(await players(page), ['www']);
  assert.equal(await page.locator(PICKER).inputValue(), 'raft-cold');
  assert.deepEqual(errors, []);
  await context.close();
  const lesson = await open(browser, server.url + '?lesson=bully&lang=en');
  await lesson.page.getByTestId('lesson-caption').waitFor();
  assert.deepEqual(await players(lesson.page), ['www']);
  assert.deepEqual(lesson.errors, []);
  await lesson.context.close();
});

test('choosing a Raft preset in the Bully player swaps to the full player on that preset', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-heartbeats&lang=en');
  // Hold the full player's wasm until the label saying what loads has been seen.
  let release;
  const held = new Promise((ok) => { release = ok; });
  let fetched = 0;
  await page.route(PLAYER_WASM, async (route) => { fetched += 1; await held; await route.continue(); });
  const picker = page.locator(PICKER);
  await picker.focus();
  await picker.selectOption('raft-cold');
  await page.getByText('Loading the player with every algorithm and the lessons…').waitFor();
  assert.ok(await page.locator('[data-node]').count() > 0, 'the Bully run is still drawn while the full player loads');
  release();
  // The swap writes the address, then the full player draws the Raft run.
  await page.waitForFunction(() => /[?&]preset=raft-cold/.test(location.search));
  await page.waitForFunction(() => document.querySelector('[data-node]') &&
    document.querySelector('select[aria-label="Preset"] option[value="raft-cold"]')?.selected);
  assert.equal(fetched, 1, 'the full player\'s wasm was fetched once');
  assert.match(page.url(), /[?&]preset=raft-cold/);
  await page.waitForFunction(() => document.activeElement?.matches('select[aria-label="Preset"]'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a full player that cannot be loaded is named, and the Bully run goes on', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.route(PLAYER_WASM, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(server.url + '?preset=bully-heartbeats&lang=en');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.locator(PICKER).selectOption('raft-cold');
  const alert = page.locator('.banner.error', { hasText: 'The player with every algorithm could not be loaded' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /404/);
  const at = await step(page);
  await page.getByRole('button', { name: 'Step forward' }).click();
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=step]')?.textContent) > n, at);
  // In Chinese too.
  await page.keyboard.press('l');
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  // (Through a Bully preset: the picker still shows the Raft preset that did not load.)
  await page.locator(PICKER).selectOption('bully-n3-notices');
  await page.waitForFunction(() => /preset=bully-n3-notices/.test(location.search));
  await page.locator(PICKER).selectOption('raft-cold');
  await page.locator('.banner.error', { hasText: '包含全部算法的播放器无法加载' }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a page switched to Chinese swaps to a full player that draws in Chinese from its first render', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  // Each player's root when it appears: whether its play button reads in Chinese then.
  await context.addInitScript(() => {
    window.__roots = [];
    const seen = new WeakSet();
    new MutationObserver(() => {
      const root = document.querySelector('body > .lab');
      if (!root || seen.has(root)) return;
      seen.add(root);
      window.__roots.push(root.querySelector('button.play')?.getAttribute('aria-label'));
    }).observe(document, { childList: true, subtree: true });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url + '?preset=bully-heartbeats&lang=en');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.keyboard.press('l');
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.locator(PICKER).selectOption('raft-cold');
  await page.waitForFunction(() => window.__roots.length === 2);
  const [bully, full] = await page.evaluate(() => window.__roots);
  assert.match(bully, /^Play/, 'the Bully player opened in English');
  assert.match(full, /^播放/, 'the full player\'s first render is in Chinese');
  assert.deepEqual(await players(page), ['bully', 'www']);
  assert.deepEqual(errors, []);
  await context.close();
});
