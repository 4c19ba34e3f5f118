// A page a lecturer can trust: narration, two languages, sturdy embeds, undo, clamped links,
// and every registered preset run to its end in the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const narration = (page) => page.getByTestId('narration').textContent();
// Live nodes drawn as leaders: role `leader`, or a protocol's own name for it (ZooKeeper's `leading`).
const leaders = (page) => page.locator('[data-node].look-leader').evaluateAll((els) => els.map((e) => Number(e.dataset.node)).sort((a, b) => a - b));
const CJK = /[\u4e00-\u9fff]/;

test('click a node, then Space: the run plays and the node stays crashed', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats');
  await page.locator('[data-node="80"]').click();
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'crashed');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="step"]').textContent) > 3);
  await page.keyboard.press('Space');
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
});

test('narration changes with each step and speaks the chosen language', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst');
  const seen = new Set([await narration(page)]);
  for (let i = 0; i < 6; i++) {
    await page.getByRole('button', { name: 'Step forward' }).click();
    seen.add(await narration(page));
  }
  assert.equal(seen.size, 7, 'a different sentence at every step');
  const en = await narration(page);
  assert.doesNotMatch(en, CJK);
  const zh = await open(browser, server.url + '?preset=ring-worst&step=6&lang=zh');
  const text = await narration(zh.page);
  assert.match(text, CJK, 'Chinese narration');
  assert.notEqual(text, en);
  assert.equal(await zh.page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await shot(zh.page, 'zh-ring-worst');
  // The event log speaks it too: timers, faults and drops are worded in Chinese; a delivery
  // line (ids and message kinds) reads the same in both languages.
  const logLines = async (p) => p.locator('.panel.log li.timer, .panel.log li.fault, .panel.log li.drop').allTextContents();
  const bz = await open(browser, server.url + '?preset=bully-heartbeats&step=80&lang=zh');
  const be = await open(browser, server.url + '?preset=bully-heartbeats&step=80&lang=en');
  const [linesZh, linesEn] = [await logLines(bz.page), await logLines(be.page)];
  assert.ok(linesZh.length > 0 && linesZh.length === linesEn.length, `${linesZh.length} vs ${linesEn.length}`);
  for (const l of linesZh) assert.match(l, CJK, l);
  for (const l of linesEn) assert.doesNotMatch(l, CJK, l);
  errors.push(...bz.errors, ...be.errors);
  // The switch flips the language and the link keeps it.
  await zh.page.getByTestId('lang').click();
  assert.doesNotMatch(await narration(zh.page), CJK);
  assert.match(zh.page.url(), /lang=en/);
  // The card explains the algorithm.
  await zh.page.getByTestId('how-it-works').click();
  assert.match(await zh.page.getByTestId('card').textContent(), /Chang/);
  assert.deepEqual([...errors, ...zh.errors], []);
});

test('an out-of-range step clamps and says so, keeping the preset', async () => {
  for (const [q, expectLast] of [['?preset=ring-best&step=99999', true], ['?preset=ring-best&step=-3', false], ['?preset=ring-best&step=abc', false]]) {
    const { page, errors } = await open(browser, server.url + q);
    assert.equal(await page.locator('select[aria-label="Preset"]').inputValue(), 'ring-best', q);
    assert.match(await page.getByRole('alert').textContent(), /step/, q);
    const s = await step(page);
    if (expectLast) assert.ok(s > 10, `${q}: the last step, got ${s}`); else assert.equal(s, 0, q);
    assert.deepEqual(errors, []);
  }
});

test('Ctrl+Z undoes the last intervention, Ctrl+Shift+Z redoes it', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats&step=5');
  await page.locator('[data-node="80"]').click();
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'crashed');
  await page.locator('body').click({ position: { x: 2, y: 2 } });
  await page.keyboard.press('Control+z');
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'up');
  assert.equal(await step(page), 5);
  await page.keyboard.press('Control+Shift+z');
  assert.equal(await page.locator('[data-node="80"]').getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
});

test('an embed with a drawn partition: Reset returns to its own step and partition', async () => {
  const { page } = await open(browser, server.url + '?preset=split-brain-bully&step=3');
  const [x1, y1] = await toPage(page, 250, 10);
  const [x2, y2] = await toPage(page, 990, 650);
  await page.mouse.move(x1, y1); await page.mouse.down(); await page.mouse.move(x2, y2, { steps: 6 }); await page.mouse.up();
  await page.waitForSelector('[data-partition]');
  for (let i = 0; i < 20; i++) await page.getByRole('button', { name: 'Step forward' }).click();
  await page.getByRole('button', { name: 'Copy embed code' }).click();
  const code = await page.getByTestId('share-text').inputValue();
  const src = code.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  const embed = await open(browser, src, { width: 640, height: 420 });
  assert.equal(await step(embed.page), 23);
  for (let i = 0; i < 5; i++) await embed.page.getByRole('button', { name: 'Step forward' }).click();
  await embed.page.getByRole('button', { name: 'Reset' }).click();
  assert.equal(await step(embed.page), 23, 'back at the link step');
  assert.equal(await embed.page.locator('[data-partition]').count(), 1, 'with its partition');
  assert.deepEqual(embed.errors, []);
});

test('a 640×420 iframe with split brain keeps its controls inside the frame', async () => {
  const ctx = await browser.newContext({ viewport: { width: 900, height: 600 } });
  const host = await ctx.newPage();
  const src = server.url + '?preset=split-brain-bully&step=3&embed=1';
  // A host page of its own: not the app's index.html, whose wasm, still loading, would mount
  // into the document that setContent writes and take the iframe away.
  await host.setContent(`<h1>Notes</h1><iframe id="f" src="${src}" width="640" height="420" style="border:1px solid #999"></iframe>`);
  const said = [];
  host.on('console', (m) => said.push(`${m.type()}: ${m.text()}`));
  host.on('pageerror', (e) => said.push(`pageerror: ${e.message}`));
  const frame = host.frameLocator('#f');
  // A loaded machine can take long to compile the wasm a second time; say what the page said if it never draws.
  await frame.locator('[data-node]').first().waitFor({ timeout: 60000 }).catch((e) => { throw new Error(`${e.message}\npage said: ${said.join(' | ')}`); });
  // Cut {1,2} from {3,4,5} inside the frame, then run to the end: two leaders, a banner.
  const box = await frame.locator('svg.canvas').boundingBox();
  const s = Math.min(box.width, box.height) / 1000;
  const at = (x, y) => [box.x + (box.width - 1000 * s) / 2 + x * s, box.y + (box.height - 1000 * s) / 2 + y * s];
  const [a1, b1] = at(250, 10); const [a2, b2] = at(990, 650);
  await host.mouse.move(a1, b1); await host.mouse.down(); await host.mouse.move(a2, b2, { steps: 6 }); await host.mouse.up();
  await frame.locator('[data-partition]').waitFor();
  for (let i = 0; i < 60; i++) await frame.getByRole('button', { name: 'Step forward' }).click();
  await frame.getByTestId('split-brain').waitFor();
  const frameBox = await host.locator('#f').boundingBox();
  const controls = await frame.locator('.controls').boundingBox();
  assert.ok(controls.y + controls.height <= frameBox.y + frameBox.height + 1, `controls inside the frame (${controls.y + controls.height} vs ${frameBox.y + frameBox.height})`);
  assert.ok(await frame.locator('.open-full').count() === 1, 'an "open in Election Lab" link');
  await host.screenshot({ path: new URL('./screenshots/iframe-640x420-split.png', import.meta.url).pathname });
  await ctx.close();
});

test('every registered preset runs to its end in the page with its expected leaders', async () => {
  // The full player's catalog (a preset of another family than the default page's): every
  // family's presets; each preset's own link then opens in the bundle index.html picks for it.
  const { page } = await open(browser, server.url + '?preset=ring-worst');
  const catalog = JSON.parse(await page.evaluate(() => window.wasmBindings.preset_catalog()));
  assert.ok(catalog.length >= 20, `${catalog.length} presets`);
  for (const p of catalog) {
    const { page: pg, errors, context } = await open(browser, server.url + `?preset=${p.id}&step=99999999`);
    assert.deepEqual(await leaders(pg), [...p.leaders].sort((a, b) => a - b), `${p.algorithm} ${p.id}`);
    // Two leaders: the split-brain alarm, or for an algorithm that elects a leader per group
    // by design, the neutral note (one of the two, never both).
    if (p.leaders.length >= 2) {
      const alarm = await pg.getByTestId('split-brain').count(), note = await pg.getByTestId('per-group').count();
      assert.equal(alarm + note, 1, `${p.id}: split-brain alert or per-group note`);
    }
    await shot(pg, `end-${p.id}`);
    assert.deepEqual(errors, [], p.id);
    await context.close();
  }
});

test('N = 64 in Chinese at 375 px: screenshot', async () => {
  const { page, errors } = await open(browser, server.url + '?lang=zh', { width: 375, height: 900 });
  await page.locator('details summary').first().click().catch(() => {});
  await page.locator('input[name="nodes"]').fill('64');
  await page.locator('input[name="leader"]').fill('');
  await page.getByRole('button', { name: /Apply|应用/ }).click();
  await page.waitForFunction(() => document.querySelectorAll('[data-node]').length === 64);
  for (let i = 0; i < 30; i++) await page.getByRole('button', { name: '前进一步' }).click();
  await shot(page, 'n64-zh-375');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 380, `no horizontal scroll (scrollWidth ${width})`);
  assert.deepEqual(errors, []);
});

// A link written before the registry and the compressed links (kept verbatim from then): it
// still opens at its step with the same drawing as the link the page writes for it today.
const OLD_LINK = '?trace=eyJmb3JtYXQiOiJlbGVjdGlvbi1sYWItdHJhY2UvMSIsImludGVydmVudGlvbnMiOlt7ImxpbmVzIjpbWzEwLDAsMTAsMTAwMF1dLCJwYXJ0aXRpb24iOltbMSwyXSxbMyw0LDVdXSwic3RlcCI6N31dLCJzY2VuYXJpbyI6eyJhbGdvcml0aG0iOiJidWxseSIsImhlYXJ0YmVhdHMiOnsiaW50ZXJ2YWwiOjIsInRpbWVvdXQiOjEwfSwiaW5pdGlhbF9sZWFkZXIiOjUsIm5ldHdvcmsiOnsiZmlmbyI6dHJ1ZSwibGF0ZW5jeSI6WzEsMV0sImxvc3MiOjAuMH0sIm5vZGVzIjpbMSwyLDMsNCw1XSwicGFyYW1zIjp7fSwic2NoZWR1bGUiOltdLCJzZWVkIjo0MjUsInN0b3AiOnsibWF4X3N0ZXBzIjoxMDAwMDAwLCJtYXhfdGltZSI6MzAwfX19&step=47';

test('a link made before the architecture change opens at the same step and SVG', async () => {
  const canvasHtml = (page) => page.locator('svg.canvas').evaluate((root) => {
    const ser = (n) => n.nodeType === 3 ? n.textContent : n.nodeType !== 1 ? '' :
      `<${n.tagName}${[...n.attributes].map((a) => ` ${a.name}="${a.value}"`).sort().join('')}>${[...n.childNodes].map(ser).join('')}</${n.tagName}>`;
    return ser(root);
  });
  const old = await open(browser, server.url + OLD_LINK);
  assert.equal(await step(old.page), 47);
  assert.deepEqual(await leaders(old.page), [2, 5], 'the split brain of that run');
  assert.equal(await old.page.locator('[data-partition]').count(), 1);
  await old.page.getByRole('button', { name: 'Copy link' }).click();
  const fresh = await open(browser, await old.page.getByTestId('share-text').inputValue());
  assert.match(fresh.page.url(), /[?&]t=1\./, 'written in today\'s compressed form');
  assert.equal(await canvasHtml(fresh.page), await canvasHtml(old.page));
  assert.deepEqual([...old.errors, ...fresh.errors], []);
});
