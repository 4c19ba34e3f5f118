// The visualiser's acceptance, in a real Chromium with real clicks, drags and URLs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage, drag, step, stepUntil } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// The drawing as markup with attributes in a fixed order (the DOM keeps them in patch order).
const canvasHtml = (page) => page.locator('svg.canvas').evaluate((root) => {
  const ser = (n) => n.nodeType === 3 ? n.textContent : n.nodeType !== 1 ? '' :
    `<${n.tagName}${[...n.attributes].map((a) => ` ${a.name}="${a.value}"`).sort().join('')}>${[...n.childNodes].map(ser).join('')}</${n.tagName}>`;
  return ser(root);
});
const leaders = (page) => page.locator('[data-role="leader"]').evaluateAll((els) => els.map((e) => Number(e.dataset.node)).sort((a, b) => a - b));

test('Bully: clicking the leader crashes it and stepping elects the next-highest id', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats');
  assert.deepEqual(await leaders(page), [80]);
  await page.locator('[data-node="80"]').click();
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'crashed');
  const ok = await stepUntil(page, async () => (await page.locator('[data-node="32"][data-role="leader"]').count()) === 1);
  assert.ok(ok, 'N32 became leader');
  // Let the COORDINATOR announcements land, then everyone names N32.
  await page.keyboard.press('End');
  assert.deepEqual(await leaders(page), [32]);
  assert.equal(await page.locator('.invariants .ok', { hasText: 'every live node names N32' }).count(), 1);
  await shot(page, 'bully-after-crash');
  assert.deepEqual(errors, []);
});

for (const [preset, expectSplit] of [['split-brain-bully', true], ['split-brain-raft', false]]) {
  test(`${preset}: a drawn line between {1,2} and {3,4,5} ${expectSplit ? 'splits the brain' : 'keeps one leader'}`, async () => {
    const { page, errors } = await open(browser, server.url + `?preset=${preset}`);
    await page.getByRole('button', { name: 'Step forward' }).click();
    await drag(page, [250, 10], [990, 650]);
    await page.waitForSelector('[data-partition]');
    await page.keyboard.press('End');
    await shot(page, `${preset}-partitioned`);
    const alert = page.locator('[data-testid="split-brain"]');
    if (expectSplit) {
      assert.deepEqual(await leaders(page), [2, 5]);
      assert.match(await alert.textContent(), /Split brain: N2, N5/);
      assert.ok(await page.locator('.marker.violation').count() > 0, 'violation marker on the timeline');
    } else {
      assert.deepEqual(await leaders(page), [5]);
      assert.equal(await alert.count(), 0);
      assert.equal(await page.locator('[role="alert"]').count(), 0);
    }
    assert.deepEqual(errors, []);
  });
}

test('partition lines can be moved and removed', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-bully');
  await drag(page, [500, 5], [500, 995]);
  await page.waitForSelector('[data-partition="0"]');
  const before = await page.locator('.cut-line').getAttribute('x1');
  const [mx, my] = await toPage(page, 500, 300);
  await page.mouse.move(mx, my);
  await page.mouse.down();
  await page.mouse.move(mx + 40, my, { steps: 5 });
  await page.mouse.up();
  assert.notEqual(await page.locator('.cut-line').getAttribute('x1'), before, 'line moved');
  await page.getByRole('button', { name: 'Remove partition line 1' }).click();
  assert.equal(await page.locator('[data-partition]').count(), 0);
  assert.deepEqual(errors, []);
});

test('k steps forward then k back gives the identical SVG; the copied link reopens it', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst');
  await page.getByRole('button', { name: 'Step forward' }).click();
  await page.getByRole('button', { name: 'Step forward' }).click();
  await page.locator('[data-node="32"]').click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Start election here' }).click();
  const start = await step(page);
  const svg0 = await canvasHtml(page);
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await step(page), start + 7);
  assert.notEqual(await canvasHtml(page), svg0);
  for (let i = 0; i < 7; i++) await page.keyboard.press('ArrowLeft');
  assert.equal(await step(page), start);
  assert.equal(await canvasHtml(page), svg0);

  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  const svg3 = await canvasHtml(page);
  await page.getByRole('button', { name: 'Copy link' }).click();
  const url = await page.getByTestId('share-text').inputValue();
  assert.match(url, /[?&]t=1\.[A-Za-z0-9_-]+&step=\d+/);
  const again = await open(browser, url);
  assert.equal(await step(again.page), start + 3);
  assert.equal(await canvasHtml(again.page), svg3);
  // A reload of the page's own URL shows the same state too.
  await page.keyboard.press('Escape');
  await page.reload();
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  assert.equal(await step(page), start + 3);
  assert.equal(await canvasHtml(page), svg3);
  assert.deepEqual([...errors, ...again.errors], []);
});

test('the embed URL renders the canvas with compact controls, paused at its step', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-worst-8&step=20');
  await page.getByRole('button', { name: 'Copy embed code' }).click();
  const code = await page.getByTestId('share-text').inputValue();
  const src = code.match(/src="([^"]+)"/)[1];
  assert.match(src, /embed=1/);
  const embed = await open(browser, src, { width: 640, height: 640 });
  assert.equal(await embed.page.locator('[data-node]').count(), 8);
  assert.equal(await embed.page.locator('.panels').count(), 0);
  assert.equal(await step(embed.page), 20);
  assert.equal(await embed.page.getByRole('button', { name: 'Play' }).count(), 1);
  await shot(embed.page, 'embed');
  assert.deepEqual([...errors, ...embed.errors], []);
});

test('importing malformed JSON shows an alert and keeps the current scenario', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-best');
  await page.keyboard.press('ArrowRight');
  const svg = await canvasHtml(page);
  for (const [text, why] of [['{"algorithm":"bully","nodes":[1,1]}', 'nodes: duplicate id 1'], ['{not json', 'not valid JSON'], ['{"algorithm":"paxos!","nodes":[1]}', 'algorithm']]) {
    await page.getByTestId('import').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), new RegExp(why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.equal(await canvasHtml(page), svg, 'previous session kept');
    await page.getByRole('button', { name: 'Dismiss' }).click();
  }
  assert.equal(await step(page), 1);
  assert.deepEqual(errors, []);
});

test('a damaged link names what is wrong and falls back to the default scenario', async () => {
  for (const q of ['?preset=nope', '?trace=%%%', '?preset=ring-best&step=banana', '?preset=ring-best&step=999999']) {
    const { page, errors } = await open(browser, server.url + q);
    assert.match(await page.getByRole('alert').textContent(), /link: /);
    assert.ok(await page.locator('[data-node]').count() > 0);
    assert.deepEqual(errors, []);
  }
});

test('keyboard: Space plays and pauses, ? shows the shortcuts', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=raft-cold');
  await page.keyboard.press('Space');
  await page.getByRole('button', { name: 'Pause' }).waitFor();
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="step"]').textContent) > 0);
  await page.keyboard.press('Space');
  await page.getByRole('button', { name: 'Play' }).waitFor();
  await page.keyboard.press('?');
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  await page.keyboard.press('Escape');
  assert.equal(await page.getByRole('dialog').count(), 0);
  assert.deepEqual(errors, []);
});

test('every preset renders; screenshots saved (light, dark, narrow)', async () => {
  const ids = await (async () => {
    const { page } = await open(browser, server.url);
    return page.locator('select[aria-label="Preset"] option:not([disabled])').evaluateAll((o) => o.map((x) => x.value));
  })();
  assert.ok(ids.length >= 9);
  for (const id of ids) {
    const { page, errors } = await open(browser, server.url + `?preset=${id}&step=12`);
    assert.ok(await page.locator("[data-node]").count() >= 3, id);
    await shot(page, `preset-${id}`);
    assert.deepEqual(errors, [], id);
  }
  const dark = await browser.newContext({ colorScheme: 'dark', viewport: { width: 1280, height: 860 } });
  const dp = await dark.newPage();
  await dp.goto(server.url + '?preset=split-brain-raft&step=30');
  await dp.waitForSelector('[data-node]:not(#first-frame *)');
  await shot(dp, 'dark');
  const narrow = await open(browser, server.url + '?preset=bully-worst-8&step=30', { width: 375, height: 800 });
  await shot(narrow.page, 'narrow-375');
  const width = await narrow.page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 375, `no horizontal scroll at 375 px (scrollWidth ${width})`);
});
