// Everyone can use it: axe-core finds no serious or critical violation on the five views; the
// node menu works by keyboard; a keyboard partition cuts nodes off; on touch, targets are at
// least 24 px, a long press opens the menu and words name gestures; hover and focus show a node
// in the inspector without touching the run, while a click still crashes it. The "Every
// schedule" form's words name their inputs and stand apart from them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, axe, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const VIEWS = [
  ['main page', '?preset=bully-worst-8&step=12', '[data-node]'],
  ['中文', '?preset=gossip-16&step=30&lang=zh', '[data-node]'],
  ['compare', '?compare=bully,raft,invitation&preset=split-brain-bully&time=12', '.lane [data-node]'],
  ['experiments', '?experiment=one-partition', '[data-testid="experiments"]'],
  ['embed', '?preset=split-brain-bully&step=30&embed=1', '[data-node]'],
  ['compare embed', '?compare=bully,raft&preset=split-brain-bully&time=30&embed=1', '.lane [data-node]'],
];

for (const [name, query, ready] of VIEWS) {
  test(`axe-core: no serious or critical violation on the ${name}`, async () => {
    const context = await browser.newContext({ viewport: name.includes('embed') ? { width: 640, height: 420 } : { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(server.url + query);
    await page.waitForSelector(ready);
    const found = await axe(page);
    assert.deepEqual(found, [], `${name}:\n${found.join('\n')}`);
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('the node menu opens, moves and acts by keyboard; Escape closes it and gives the focus back', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats');
  const ids = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const id = ids[1];
  const node = page.locator(`[data-node="${id}"]`);
  await node.focus();
  await page.keyboard.press('m');
  const menu = page.locator('.node-menu');
  await menu.waitFor();
  const focused = () => page.evaluate(() => document.activeElement?.textContent);
  assert.equal(await focused(), 'Crash', 'the menu takes the focus on its first item');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Start election here');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'Close', 'ArrowUp wraps round to the last item');
  await page.keyboard.press('Escape');
  assert.equal(await menu.count(), 0, 'Escape closes the menu');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset?.node), id, 'the focus is back on the node');
  assert.equal(await step(page), 0, 'the arrows moved in the menu, not the run');
  // Enter on "Start election here" starts an election there and does not crash the node.
  await page.keyboard.press('m');
  await menu.waitFor();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  assert.equal(await menu.count(), 0);
  assert.equal(await node.getAttribute('data-status'), 'up', 'Enter in the menu is not a crash');
  assert.equal(await page.locator('.log li.iv', { hasText: `start an election at N${id}` }).count() + await page.locator('.log li.iv', { hasText: `N${id}` }).count() > 0, true, 'the intervention is in the log');
  assert.match(page.url(), /[?&]t=1\./, 'the link carries it');
  // And the menu's Crash does crash it.
  await node.focus();
  await page.keyboard.press('m');
  await menu.waitFor();
  await page.keyboard.press('Enter');
  assert.equal(await node.getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
});

test('a keyboard partition: P chooses nodes, "Cut them off" draws one line that splits them from the rest', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats');
  const ids = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const chosen = ids.slice(0, 2);
  for (const id of chosen) {
    await page.locator(`[data-node="${id}"]`).focus();
    await page.keyboard.press('p');
  }
  assert.equal(await page.locator('[data-node].chosen').count(), 2, 'chosen nodes are marked');
  assert.equal(await page.locator('[data-node][aria-pressed="true"]').count(), 2, 'and say so to assistive technology');
  const bar = page.getByTestId('side-bar');
  assert.match(await bar.textContent(), new RegExp(chosen.map((c) => `N${c}`).join(', ')));
  await shot(page, 'a11y-keyboard-side');
  // P again takes a node off; P once more puts it back.
  await page.keyboard.press('p');
  assert.equal(await page.locator('[data-node].chosen').count(), 1);
  await page.keyboard.press('p');
  await page.getByTestId('cut-side').focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-partition]');
  assert.equal(await page.locator('[data-partition]').count(), 1, 'one line, drawn like a dragged one');
  assert.equal(await bar.count(), 0, 'the bar is gone');
  assert.equal(await page.locator('[data-node].chosen').count(), 0);
  // Every chosen node is on one side of the line, every other node on the other.
  const sides = await page.evaluate(() => {
    const l = document.querySelector('.cut-line');
    const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => Number(l.getAttribute(a)));
    return Object.fromEntries([...document.querySelectorAll('[data-node]')].map((g) => {
      const c = g.querySelector('circle.disc');
      const [x, y] = [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))];
      return [g.dataset.node, (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1) >= 0];
    }));
  });
  const chosenSide = new Set(chosen.map((c) => sides[c]));
  const otherSide = new Set(ids.filter((i) => !chosen.includes(i)).map((i) => sides[i]));
  assert.equal(chosenSide.size, 1);
  assert.equal(otherSide.size, 1);
  assert.notDeepEqual([...chosenSide], [...otherSide], 'the line separates the chosen nodes from the rest');
  assert.match(await page.locator('.log li.iv').last().textContent(), /partition/i, 'recorded as a partition');
  await shot(page, 'a11y-keyboard-partition');
  // Nodes that no straight line separates are refused by name.
  await page.locator(`[data-node="${ids[0]}"]`).focus();
  await page.keyboard.press('p');
  await page.locator(`[data-node="${ids[2]}"]`).focus();
  await page.keyboard.press('p');
  await page.getByTestId('cut-side').click();
  assert.equal(await page.locator('[data-partition]').count(), 1, 'no second line');
  assert.match(await page.locator('.banner.notice').textContent(), new RegExp(`N${ids[0]}, N${ids[2]}`));
  assert.deepEqual(errors, []);
});

test('hover and focus show a node in the inspector without changing the run; a click still crashes', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats&step=5');
  const ids = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const inspector = page.locator('section.panel', { has: page.locator('h2', { hasText: 'Inspector' }) });
  const url = page.url();
  await page.locator(`[data-node="${ids[2]}"]`).hover();
  await inspector.locator('b', { hasText: `N${ids[2]}` }).waitFor();
  assert.equal(await page.locator(`[data-node="${ids[2]}"]`).getAttribute('data-status'), 'up');
  await page.locator(`[data-node="${ids[3]}"]`).focus();
  await inspector.locator('b', { hasText: `N${ids[3]}` }).waitFor();
  assert.equal(await step(page), 5);
  assert.equal(await page.locator('.log li.iv').count(), 0, 'no intervention');
  assert.equal(page.url(), url, 'the link is unchanged');
  await page.locator(`[data-node="${ids[3]}"]`).click();
  assert.equal(await page.locator(`[data-node="${ids[3]}"]`).getAttribute('data-status'), 'crashed', 'click keeps crashing');
  assert.deepEqual(errors, []);
});

test('on touch: targets of 24 px or more, a long press opens the menu (no crash), words name taps', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 760 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(server.url + '?preset=bully-worst-8&lang=en');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  const narration = await page.getByTestId('narration').textContent();
  assert.match(narration, /Tap/);
  assert.doesNotMatch(narration, /Press|Space/, 'no key named on a phone');
  // Draw a line by keyboard-free means (the menu), so its ✕ can be measured too.
  const ids = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const node = page.locator(`[data-node="${ids[0]}"]`);
  const box = await node.locator('circle.disc').boundingBox();
  const client = await context.newCDPSession(page);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await client.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at] });
  await page.waitForTimeout(900);
  await client.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await page.locator('.node-menu').waitFor();
  assert.equal(await node.getAttribute('data-status'), 'up', 'a long press does not crash');
  await shot(page, 'a11y-touch-long-press');
  await page.locator('.node-menu button', { hasText: 'Choose for a partition side' }).tap();
  await page.locator(`[data-node="${ids[1]}"]`).click({ modifiers: ['Shift'] });
  await page.locator('.node-menu button', { hasText: 'Choose for a partition side' }).tap();
  await page.getByTestId('cut-side').tap();
  await page.waitForSelector('[data-partition]');
  // A tap still crashes.
  await page.locator(`[data-node="${ids[4]}"]`).tap();
  assert.equal(await page.locator(`[data-node="${ids[4]}"]`).getAttribute('data-status'), 'crashed');
  const small = await page.evaluate(() => {
    const out = [];
    const targets = [...document.querySelectorAll('[data-node] circle.disc, .cut-remove circle, button, select, a, g.dot[role="button"] .dot-hit')];
    for (const t of targets) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (t.closest('.timeline')) continue; // the timeline's markers lie on the scrubber, see below
      if (Math.min(r.width, r.height) < 24 - 0.5) out.push(`${t.outerHTML.slice(0, 60)} ${r.width.toFixed(1)}×${r.height.toFixed(1)}`);
    }
    return out;
  });
  assert.deepEqual(small, [], 'every target is at least 24 px');
  await shot(page, 'a11y-touch-targets');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the "Every schedule" form: each bound\'s words name its input and stand apart from it, in English and 中文', async () => {
  const names = {
    en: ['Property', 'Crashes at most', 'Partitions at most', 'Depth at most', 'Timed up to t (0: asynchronous)'],
    zh: ['性质', '崩溃至多', '分区至多', '深度至多', '计时模型至 t（0：异步）'],
  };
  for (const [lang, words] of Object.entries(names)) {
    for (const width of [375, 1280]) {
      const { page, errors, context } = await open(browser, `${server.url}?preset=split-brain-raft&lang=${lang}`, { width, height: 860 });
      await page.getByTestId('check-open').click();
      const form = page.getByTestId('check-every');
      await form.getByTestId('check-depth').waitFor({ timeout: 60000 });
      const ids = ['check-property', 'check-crashes', 'check-partitions', 'check-depth', 'check-horizon'];
      for (const [k, name] of words.entries()) {
        // (A label's name takes in its control's value too: "Crashes at most 0".)
        const input = form.getByLabel(name);
        assert.equal(await input.getAttribute('data-testid'), ids[k], `${lang}, ${width} px: "${name}" names its input`);
        // The words' box and the input's do not touch: apart on one line, or the input below.
        const apart = await input.evaluate((el) => {
          const range = document.createRange();
          range.selectNodeContents(el.closest('label').firstChild);
          const [t, i] = [range.getBoundingClientRect(), el.getBoundingClientRect()];
          return i.left - t.right >= 4 || i.top - t.bottom >= 0;
        });
        assert.ok(apart, `${lang}, ${width} px: "${name}" stands apart from its input`);
      }
      const found = await axe(page);
      assert.deepEqual(found, [], `${lang}, ${width} px:\n${found.join('\n')}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});
