// The first frames (www/src/first_frames.rs, index.html's loader): while the player's wasm is on
// its way, a page that names only a preset and a language shows that preset's first frame, drawn
// at build time by the app's own components, inert, with a line saying the simulator is loading.
// When the player has drawn, the frame is gone and what the player drew is the same frame. A
// player that does not load is named on that line, with a button to reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const WASM = /election-lab-(bully|www)-[0-9a-f]{16}_bg\.wasm$/;

/** Installed before the page's scripts: a signature of the page's `.lab` (every element's tag,
 *  attributes and, for a leaf, text) taken from the first frame when it appears and from the
 *  player when it has replaced the frame (a Chinese page's player has its texts by then: they
 *  were fetched beside the wasm); and how many animation frames had passed when the frame went
 *  and when the player appeared. */
function watch() {
  // Form controls' state is a property the player sets and an attribute in the frame's HTML.
  const skip = new Set(['value', 'selected', 'checked']);
  const attr = (a) => `${a.name}=${a.value}`;
  const sig = (root) => [root, ...root.querySelectorAll('*')].map((e) => e.tagName + ' ' +
    [...e.attributes].filter((a) => !skip.has(a.name)).map(attr).sort().join(' ') +
    (e.childElementCount ? '' : ' | ' + e.textContent));
  const w = (window.__ff = { frames: 0 });
  const tick = () => { w.frames += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  new MutationObserver(() => {
    const frame = document.getElementById('first-frame');
    if (frame && !w.frame && frame.querySelector('[data-node]')) {
      w.frame = sig(frame.querySelector('.lab'));
      w.status = frame.querySelector('.first-frame-status').textContent;
      w.inert = frame.querySelector('.lab').parentElement.inert;
    }
    const app = document.querySelector('body > .lab');
    if (w.frame && !frame && app && !w.app) {
      w.app = sig(app);
    }
    if (w.frame && !frame && w.removedFrames === undefined) w.removedFrames = w.frames;
    if (app && w.appearFrames === undefined) w.appearFrames = w.frames;
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['lang'] });
}

/** A fresh page whose player's wasm is held until `release()`. */
async function held(query, viewport = { width: 1920, height: 1080 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.addInitScript(watch);
  let release;
  const gate = new Promise((ok) => { release = ok; });
  await page.route(WASM, async (route) => { await gate; await route.continue(); });
  await page.goto(server.url + query);
  return { page, errors, context, release };
}

/** The first difference of two signatures, for the failure message. */
const firstDifference = (a, b) => {
  const i = a.findIndex((x, k) => x !== b[k]);
  return i < 0 ? `lengths ${a.length} and ${b.length}` : `element ${i}:\n  frame:  ${a[i]}\n  player: ${b[i]}`;
};

const PHONE = { width: 375, height: 740 };
for (const [query, status, label, viewport, unit] of [
  ['?preset=bully-heartbeats&lang=en', 'Loading the simulator…', 'Bully cluster of 6 nodes at step 0', undefined, '1.000'],
  ['?preset=raft-cold&lang=zh', '正在加载模拟器…', null, undefined, '1.000'],
  // A phone's frame, larger texts for its narrower canvas; its player starts from that scale.
  ['?preset=bully-worst-8&lang=en', 'Loading the simulator…', null, PHONE, '2.800'],
]) {
  test(`${query}${viewport ? ' on a phone' : ''}: the first frame is shown, inert, until the player draws the same frame`, async () => {
    const { page, errors, context, release } = await held(query, viewport);
    await page.locator('#first-frame [data-node]').first().waitFor();
    const seen = await page.evaluate(() => window.__ff);
    assert.equal(seen.status, status);
    assert.equal(seen.inert, true, 'the frame takes no clicks or focus');
    if (label) assert.equal(await page.locator('#first-frame svg.canvas').getAttribute('aria-label'), label);
    assert.equal(await page.locator('#first-frame svg.canvas').getAttribute('style'), `--u:${unit}`);
    assert.equal(await page.locator('body > .lab').count(), 0, 'no player yet');
    // What assistive technology meets meanwhile: the line, the frame left out (inert).
    assert.deepEqual(await axe(page), []);
    release();
    await page.waitForFunction(() => window.__ff.app);
    const { frame, app, removedFrames, appearFrames } = await page.evaluate(() => window.__ff);
    assert.deepEqual(app, frame, firstDifference(frame, app));
    // The frame went and the player's own came with no paint between them.
    assert.equal(appearFrames, removedFrames, 'no paint between the frame and the player');
    assert.equal(await page.locator('#first-frame').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('a player that does not load is named on the first frame\'s line, with a button to reload', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.route(WASM, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(server.url + '?preset=bully-worst-8&lang=en');
  const line = page.getByRole('alert');
  await line.waitFor();
  assert.match(await line.textContent(), /^The simulator could not be loaded: 404 .*election-lab-bully-[0-9a-f]+_bg\.wasm Reload$/);
  assert.ok(await page.locator('#first-frame [data-node]').count() > 0, 'the frame stays');
  // Reload asks again (and fails again here).
  const again = page.waitForEvent('load');
  await line.getByRole('button', { name: 'Reload' }).click();
  await again;
  await page.getByRole('alert').waitFor();
  await context.close();
});

test('a page that names more than a preset and a language waits for its player, as before', async () => {
  const { page, errors, context, release } = await held('?preset=bully-heartbeats&step=3&lang=en');
  // The player's wasm is held: only the page's own files have been asked for.
  await page.waitForLoadState('domcontentloaded');
  release();
  await page.waitForSelector('body > .lab [data-node]');
  const asked = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name));
  assert.deepEqual(asked.filter((u) => /\/first-[0-9a-f]+\//.test(u)), []);
  assert.equal(await page.evaluate(() => window.__ff.frame), undefined);
  assert.deepEqual(errors, []);
  await context.close();
});
