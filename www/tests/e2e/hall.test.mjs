// The lecture hall on a phone and on a projector: the Bully lesson on a 375×667 touch phone keeps
// the canvas, the question (or Continue) and the step controls on the screen at every stop; a
// phone's header is one row whose hint names taps, and a node's menu opens inside the screen;
// the presenter view (?present=1, or Present in the header) shows node labels, the narration and
// the caption at 28 px or more on a 1920×1080 frame, steps with a clicker's PageDown and leaves
// with Escape; an embed's text grows with its frame; axe-core finds nothing serious on either view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const PHONE = { width: 375, height: 667 };

/** A page in a touch context of `viewport` that records errors. */
const touchPage = (url, viewport) => open(browser, url, viewport, { hasTouch: true, isMobile: true, deviceScaleFactor: 2 });

/** A page (mouse) of `viewport`. */
const plainPage = (url, viewport) => open(browser, url, viewport);

/** The element's box if it lies wholly on the screen (no scrolling), else why not. */
async function onScreen(page, selector) {
  return page.evaluate((sel) => {
    const e = document.querySelector(sel);
    if (!e) return `${sel}: absent`;
    const r = e.getBoundingClientRect();
    const ok = r.width > 0 && r.top >= -0.5 && r.left >= -0.5 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
    return ok ? 'ok' : `${sel}: ${r.left.toFixed(0)},${r.top.toFixed(0)}–${r.right.toFixed(0)},${r.bottom.toFixed(0)} on ${innerWidth}×${innerHeight}`;
  }, selector);
}

/** What the stop asks, on screen: the canvas, the prompt (a question or an act) and the way on,
 * and the step controls, none of them hidden under the controls. */
async function stopInView(page, where) {
  const lesson = '[data-testid="lesson"]';
  const asked = await page.evaluate((l) => {
    const q = document.querySelector(`${l} [data-testid="lesson-prompt"], ${l} [data-testid="lesson-act"]`);
    return q ? `[data-testid="${q.dataset.testid}"]` : null;
  }, lesson);
  const wanted = ['svg.canvas', '.stage > .controls', `${lesson} [data-testid="lesson-caption"]`];
  if (asked) wanted.push(`${lesson} ${asked}`);
  for (const way of ['lesson-continue', 'lesson-ask-node', 'lesson-number', 'lesson-choice', 'lesson-yes', 'lesson-show-me']) {
    if (await page.locator(`${lesson} [data-testid="${way}"]`).count()) wanted.push(`${lesson} [data-testid="${way}"]`);
  }
  for (const sel of wanted) assert.equal(await onScreen(page, sel), 'ok', `${where}: ${sel}`);
  // The sticky controls cover nothing of the card's question.
  const covered = await page.evaluate((sels) => {
    const c = document.querySelector('.stage > .controls').getBoundingClientRect();
    return sels.filter((s) => { const r = document.querySelector(s).getBoundingClientRect(); return r.bottom > c.top + 0.5 && r.top < c.bottom; });
  }, wanted.filter((s) => s.startsWith(lesson)));
  assert.deepEqual(covered, [], `${where}: under the step controls`);
}

/** Answers the stop (any answer will do) or lets the run show the act, then goes on. */
async function walkOn(page, k) {
  const lesson = page.getByTestId('lesson');
  if (await lesson.getByTestId('lesson-ask-node').count()) {
    await page.locator('[data-node]').first().tap();
  } else if (await lesson.getByTestId('lesson-number').count()) {
    await lesson.getByTestId('lesson-number').fill('1');
    await lesson.getByTestId('lesson-check').tap();
  } else if (await lesson.getByTestId('lesson-choice').count()) {
    await lesson.getByTestId('lesson-choice').first().tap();
  } else if (await lesson.getByTestId('lesson-yes').count()) {
    await lesson.getByTestId('lesson-yes').tap();
  } else if (await lesson.getByTestId('lesson-show-me').count()) {
    await lesson.getByTestId('lesson-show-me').tap();
    await lesson.getByTestId('lesson-act-met').waitFor({ timeout: 60000 });
  }
  await lesson.getByTestId('lesson-continue').waitFor({ timeout: 60000 });
  await stopInView(page, `stop ${k + 1}, answered`);
  await lesson.getByTestId('lesson-continue').tap();
  await page.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
  await page.locator(`[data-testid="lesson"][data-stop="${k + 1}"] [data-testid="lesson-caption"], [data-testid="lesson-done"]`).first().waitFor({ timeout: 60000 });
}

test('the Bully lesson on a 375×667 touch phone: canvas, question and step controls on the screen at every stop', async () => {
  const { page, errors, context } = await touchPage(server.url + '?lesson=bully&lang=en', PHONE);
  await page.getByTestId('lesson-caption').waitFor();
  const header = await page.locator('header.top').boundingBox();
  assert.ok(header.height <= 48, `the header is one row (${header.height.toFixed(0)} px)`);
  let k = 0;
  for (; k < 30 && !(await page.getByTestId('lesson-done').count()); k++) {
    await stopInView(page, `stop ${k + 1}`);
    if (k === 0) {
      assert.match(await page.getByTestId('lesson-ask-node').textContent(), /^Tap the node/, 'the card names a tap');
      await shot(page, 'hall-phone-375-stop1');
    }
    await walkOn(page, k);
    if (k === 0) await shot(page, 'hall-phone-375-stop2');
  }
  assert.ok(k >= 5, `walked ${k} stops`);
  assert.ok(await page.getByTestId('lesson-done').count(), 'the lesson ended');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the lesson at 390×844, in Chinese: the first stop in view; axe-core finds nothing serious on the phone', async () => {
  const { page, errors, context } = await touchPage(server.url + '?lesson=bully&lang=zh', { width: 390, height: 844 });
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.getByTestId('lesson-caption').waitFor();
  await stopInView(page, '390×844, stop 1');
  await shot(page, 'hall-phone-390-zh');
  const found = await axe(page);
  assert.deepEqual(found, [], found.join('\n'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a phone outside a lesson: one header row whose hint names taps, step controls in view, the node menu inside the screen', async () => {
  const { page, errors, context } = await touchPage(server.url + '?preset=bully-worst-8&lang=en', PHONE);
  const hint = await page.locator('header.top > .hint').textContent();
  assert.match(hint, /tap a node/);
  assert.doesNotMatch(hint, /click/i);
  assert.equal(await onScreen(page, '.stage > .controls'), 'ok');
  assert.equal(await onScreen(page, 'svg.canvas'), 'ok');
  // One row: every button of the header is level with the first, none on top of another.
  const row = await page.evaluate(() => {
    // (A closed menu's content keeps a box in Chromium, unpainted: left out.)
    const shown = [...document.querySelectorAll('header.top button, header.top select')].filter((b) => !b.closest('.picture-menu'));
    const boxes = shown.map((b) => b.getBoundingClientRect());
    const mid = (r) => (r.top + r.bottom) / 2;
    const level = boxes.every((r) => Math.abs(mid(r) - mid(boxes[0])) <= 4);
    const sorted = boxes.slice().sort((a, b) => a.left - b.left);
    const apart = sorted.every((r, i) => i === 0 || r.left >= sorted[i - 1].right - 0.5);
    return { level, apart, n: boxes.length };
  });
  assert.deepEqual(row, { level: true, apart: true, n: row.n }, 'the header\'s buttons are one row, side by side');
  // A long press on the rightmost node: its menu opens wholly inside the screen.
  const right = await page.locator('[data-node]').evaluateAll((els) => {
    const xs = els.map((e) => [e.dataset.node, e.querySelector('circle.disc').getBoundingClientRect().right]);
    return xs.sort((a, b) => b[1] - a[1])[0][0];
  });
  const box = await page.locator(`[data-node="${right}"] circle.disc`).boundingBox();
  const client = await context.newCDPSession(page);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await client.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at] });
  await page.locator('.node-menu').waitFor();
  await client.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  assert.equal(await onScreen(page, '.node-menu'), 'ok');
  await shot(page, 'hall-phone-menu');
  // Scrolled to the panels below, the step controls stay at the screen's foot.
  await page.locator('.invariants').first().scrollIntoViewIfNeeded();
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Step forward' }).tap();
  assert.equal(await page.getByTestId('step').textContent(), '1');
  assert.equal(await onScreen(page, '.stage > .controls'), 'ok');
  assert.deepEqual(errors, []);
  await context.close();
});

/** The smallest on-screen size (CSS px) of the texts matching `selector` in the canvas. */
const smallest = (page, selector) => page.evaluate((sel) => {
  let min = Infinity;
  for (const svg of document.querySelectorAll('svg.canvas')) {
    const scale = svg.getScreenCTM().a;
    for (const t of svg.querySelectorAll(sel)) {
      if (!t.textContent.trim() || t.getBoundingClientRect().width === 0) continue;
      min = Math.min(min, parseFloat(getComputedStyle(t).fontSize) * scale);
    }
  }
  return min;
}, selector);
const fontOf = (page, testid) => page.getByTestId(testid).evaluate((e) => parseFloat(getComputedStyle(e).fontSize));

test('the presenter view on a 1920×1080 projector: labels, narration and caption of 28 px or more, no side panels; axe-core clean', async () => {
  const { page, errors, context } = await plainPage(server.url + '?lesson=bully&present=1&lang=en', { width: 1920, height: 1080 });
  await page.getByTestId('lesson-caption').waitFor();
  // The canvas is re-measured after the layout settles: wait until the labels have grown.
  await page.waitForFunction(() => {
    const svg = document.querySelector('svg.canvas');
    const t = svg.querySelector('.node text.id');
    return t && parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a >= 28;
  });
  for (const sel of ['.node text.id', '.node text.view', '.node text.sub', '.dot-label']) {
    const px = await smallest(page, sel);
    assert.ok(px === Infinity || px >= 28, `${sel}: ${px.toFixed(1)} px`);
  }
  assert.ok((await smallest(page, '.node text.id')) >= 28, 'node ids are drawn');
  for (const id of ['narration', 'lesson-caption', 'lesson-prompt']) {
    const px = await fontOf(page, id);
    assert.ok(px >= 28, `${id}: ${px} px`);
  }
  assert.equal(await page.locator('header.top').count(), 0, 'no header');
  assert.equal(await page.locator('.panels .invariants').isVisible(), false, 'no side panels');
  for (const sel of ['svg.canvas', '[data-testid="lesson-prompt"]', '[data-testid="narration"]']) {
    assert.equal(await onScreen(page, sel), 'ok', sel);
  }
  await shot(page, 'hall-presenter-1920');
  const found = await axe(page);
  assert.deepEqual(found, [], found.join('\n'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('Present in the header enters the view, PageDown and PageUp step, Escape leaves; the link keeps present=1', async () => {
  const { page, errors, context } = await plainPage(server.url + '?preset=bully-worst-8&lang=en', { width: 1280, height: 860 });
  await shot(page, 'hall-normal-1280');
  await page.getByRole('button', { name: 'Present' }).click();
  await page.locator('.lab.present').waitFor();
  await page.waitForFunction(() => location.search.includes('present=1'));
  await page.keyboard.press('PageDown');
  await page.keyboard.press('PageDown');
  assert.equal(await page.getByTestId('step').textContent(), '2');
  await page.keyboard.press('PageUp');
  assert.equal(await page.getByTestId('step').textContent(), '1');
  await page.keyboard.press('Escape');
  await page.locator('header.top').waitFor();
  assert.equal(await page.locator('.lab.present').count(), 0);
  await page.waitForFunction(() => !location.search.includes('present=1'));
  // The way out by pointer, in Chinese.
  await page.goto(server.url + '?preset=bully-worst-8&present=1&lang=zh');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.getByTestId('present-exit').click();
  await page.locator('header.top').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('an embed\'s text grows with its frame: 960×540 larger than 640×420', async () => {
  const sizes = {};
  for (const [w, h] of [[640, 420], [960, 540]]) {
    const { page, errors, context } = await plainPage(server.url + '?preset=bully-worst-8&step=30&embed=1&lang=en', { width: w, height: h });
    // The canvas sizes its labels from the frame once measured: wait for the size it asks.
    await page.waitForFunction(() => {
      const svg = document.querySelector('svg.canvas');
      const asked = parseFloat(getComputedStyle(svg).fontSize);
      const got = [...svg.querySelectorAll('.node text.view')].map((t) => parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a);
      return got.length > 0 && Math.min(...got) >= asked - 0.5;
    });
    sizes[w] = { label: await smallest(page, '.node text.view, .node text.sub'), narration: await fontOf(page, 'narration') };
    const frame = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    assert.ok(frame[0] <= w && frame[1] <= h, `${w}×${h}: everything inside the frame (${frame})`);
    await shot(page, `hall-embed-${w}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
  assert.ok(sizes[960].label > sizes[640].label + 1, `labels: ${JSON.stringify(sizes)}`);
  assert.ok(sizes[960].narration > sizes[640].narration + 1, `narration: ${JSON.stringify(sizes)}`);
});
