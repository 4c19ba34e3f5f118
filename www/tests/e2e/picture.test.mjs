// Pictures for slides: "Export picture…" downloads the drawing as a standalone SVG and as a PNG
// of the chosen width and colours, each with a caption and a legend of the kinds in flight.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { serve, launch, open, SHOTS } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Clicks `name` in the picture dialog and returns the download's file name and bytes. */
async function download(page, name) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
  const bytes = await readFile(await dl.path());
  await mkdir(SHOTS, { recursive: true });
  await copyFile(await dl.path(), join(SHOTS, `export-${dl.suggestedFilename()}`));
  return { file: dl.suggestedFilename(), bytes };
}

/** Width and height from a PNG's IHDR chunk, after checking the signature. */
function pngSize(bytes) {
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(bytes.subarray(12, 16).toString('latin1'), 'IHDR');
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
}

/** Loads an image (as a data URL) in the page: its natural size and a few pixels' brightness. */
const render = (page, url) => page.evaluate(async (url) => {
  const img = new Image();
  img.src = url;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const lum = (x, y) => { const [r, g, b] = ctx.getImageData(x, y, 1, 1).data; return Math.round((r + g + b) / 3); };
  return { w: img.naturalWidth, h: img.naturalHeight, corner: lum(4, 4), distinct: new Set(ctx.getImageData(0, 0, c.width, c.height).data).size };
}, url);

test('Export picture: an SVG that stands alone, and PNGs of the chosen width, light and dark', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst&step=3');
  const nodes = await page.locator('[data-node]').evaluateAll((els) => els.map((e) => e.dataset.node));
  const kinds = [...new Set(await page.locator('g.dot').evaluateAll((els) => els.map((e) => e.dataset.msg)))];
  assert.ok(kinds.length > 0, 'messages in flight');

  await page.locator('summary', { hasText: 'Export picture…' }).click();
  const menu = page.getByRole('group', { name: 'Export picture' });
  await menu.waitFor();
  // Keys typed in the menu stay there: the arrows do not step the run behind it.
  await page.getByLabel('Picture colours').focus();
  await page.keyboard.press('ArrowRight');
  assert.equal(Number(await page.getByTestId('step').textContent()), 3);
  await page.getByLabel('Picture colours').selectOption('page');
  await page.getByLabel('Picture width').selectOption('1280');
  assert.equal(await page.getByLabel('Picture shape').inputValue(), 'slide', 'a slide by default');

  // SVG: one file, parseable, with the nodes, the caption and the legend, and renderable.
  const svg = await download(page, 'Download SVG');
  assert.equal(svg.file, 'election-lab-ring-worst-step3.svg');
  const text = svg.bytes.toString('utf8');
  assert.ok(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="1280" height="720" viewBox="0 0 1778 1000"'), text.slice(0, 120));
  for (const id of nodes) assert.ok(text.includes(`>N${id}</text>`), `node label N${id}`);
  assert.match(text, /step 3 · t = \d+/);
  for (const k of kinds) assert.ok(text.includes(`</tspan> ${k}</text>`), `legend entry ${k}`);
  assert.ok(!/class="(dot-hit|backdrop|cut-hit)"/.test(text), 'no hit areas in the picture');
  assert.ok(!text.includes('var(--'), 'styles are resolved, not variables');
  const parsed = await page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, 'image/svg+xml');
    return { error: doc.querySelector('parsererror')?.textContent ?? null, root: doc.documentElement.localName };
  }, text);
  assert.deepEqual(parsed, { error: null, root: 'svg' });
  const shown = await render(page, 'data:image/svg+xml;base64,' + svg.bytes.toString('base64'));
  assert.deepEqual([shown.w, shown.h], [1280, 720], '16:9');
  assert.ok(shown.distinct > 20, 'the picture is not blank');

  // PNG for notes (caption above, legend below), light, 1920 wide.
  await page.getByLabel('Picture shape').selectOption('tall');
  await page.getByLabel('Picture colours').selectOption('light');
  await page.getByLabel('Picture width').selectOption('1920');
  const light = await download(page, 'Download PNG');
  assert.equal(light.file, 'election-lab-ring-worst-step3.png');
  const [lw, lh] = pngSize(light.bytes);
  assert.equal(lw, 1920);
  // 100 units of caption, the 1000 of the drawing, one row of legend (36 + 24): 1160 units.
  assert.equal(lh, Math.round(1920 * 1160 / 1000));
  const lightPx = await render(page, 'data:image/png;base64,' + light.bytes.toString('base64'));
  assert.ok(lightPx.corner > 200, `light background (${lightPx.corner})`);
  await copyFile(join(SHOTS, 'export-election-lab-ring-worst-step3.png'), join(SHOTS, 'export-light-1920.png'));

  // PNG slide, dark, 1280 wide, from a light page.
  await page.getByLabel('Picture shape').selectOption('slide');
  await page.getByLabel('Picture colours').selectOption('dark');
  await page.getByLabel('Picture width').selectOption('1280');
  const dark = await download(page, 'Download PNG');
  assert.deepEqual(pngSize(dark.bytes), [1280, 720]);
  const darkPx = await render(page, 'data:image/png;base64,' + dark.bytes.toString('base64'));
  assert.ok(darkPx.corner < 60, `dark background (${darkPx.corner})`);
  await copyFile(join(SHOTS, 'export-election-lab-ring-worst-step3.png'), join(SHOTS, 'export-dark-1280.png'));
  // The page itself is as it was.
  assert.equal(await page.locator('.canvas-wrap').getAttribute('style'), null);

  await page.getByLabel('Picture width').focus();
  await page.keyboard.press('Escape');
  assert.ok(!(await menu.isVisible()), 'Escape closes the menu');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Export picture…', 'focus back on its summary');
  assert.deepEqual(errors, []);
});

test('Export picture "as the page" follows a dark page', async () => {
  const context = await browser.newContext({ colorScheme: 'dark', viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(server.url + '?preset=split-brain-raft&step=30');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.locator('summary', { hasText: 'Export picture…' }).click();
  const png = await download(page, 'Download PNG');
  assert.deepEqual(pngSize(png.bytes), [1920, 1080], 'default: a 1920 × 1080 slide');
  const px = await render(page, 'data:image/png;base64,' + png.bytes.toString('base64'));
  assert.ok(px.corner < 60, `dark like the page (${px.corner})`);
  await copyFile(join(SHOTS, `export-${png.file}`), join(SHOTS, 'export-page-dark.png'));
  await context.close();
});

/** The chunks of a PNG file, with their CRCs checked: [{type, data}]. */
function pngChunks(bytes) {
  const crcTable = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
  const crc = (b) => { let c = 0xffffffff; for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const out = [];
  for (let at = 8; at < bytes.length;) {
    const len = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    assert.equal(bytes.readUInt32BE(at + 8 + len), crc(bytes.subarray(at + 4, at + 8 + len)), `CRC of ${type}`);
    out.push({ type, data: bytes.subarray(at + 8, at + 8 + len) });
    at += 12 + len;
  }
  return out;
}

test('Export animation: an animated PNG of a range of steps, and the page back where it was', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst&step=7');
  await page.locator('summary', { hasText: 'Export picture…' }).click();
  await page.getByLabel('Picture width').selectOption('1280');
  await page.getByLabel('Animation from step').fill('2');
  await page.getByLabel('Animation to step').fill('6');
  await page.getByLabel('Milliseconds per step').fill('400');
  const apng = await download(page, 'Download animation');
  assert.equal(apng.file, 'election-lab-ring-worst-steps2-6.png');
  assert.deepEqual(pngSize(apng.bytes), [1280, 720]);
  const chunks = pngChunks(apng.bytes);
  const actl = chunks.find((c) => c.type === 'acTL');
  assert.ok(actl && chunks.indexOf(actl) < chunks.findIndex((c) => c.type === 'IDAT'), 'acTL before the image data');
  assert.equal(actl.data.readUInt32BE(0), 5, 'five frames: steps 2 to 6');
  const fctl = chunks.filter((c) => c.type === 'fcTL');
  assert.equal(fctl.length, 5);
  assert.ok(fctl.every((c) => c.data.readUInt16BE(20) === 400 && c.data.readUInt16BE(22) === 1000), '400 ms a frame');
  assert.ok(chunks.filter((c) => c.type === 'fdAT').length >= 4, 'frames after the first');
  assert.equal(chunks.at(-1).type, 'IEND');
  // Sequence numbers run 0, 1, 2, ... across fcTL and fdAT.
  const seqs = chunks.filter((c) => c.type === 'fcTL' || c.type === 'fdAT').map((c) => c.data.readUInt32BE(0));
  assert.deepEqual(seqs, seqs.map((_, i) => i));
  // The frames differ (the run moves) and the browser decodes the file.
  const shown = await render(page, 'data:image/png;base64,' + apng.bytes.toString('base64'));
  assert.deepEqual([shown.w, shown.h], [1280, 720]);
  await page.waitForFunction(() => document.querySelector('[data-testid="step"]')?.textContent === '7');
  assert.deepEqual(errors, []);
});

/** The pixels of an SVG text rendered at its own size, and the client boxes of its legend's
 *  kind markers (`g.legend-kind`), measured on the same SVG placed in the page. */
const legendPixels = (page, text) => page.evaluate(async (text) => {
  const holder = document.createElement('div');
  holder.style.cssText = 'position:absolute;left:0;top:0;';
  holder.innerHTML = text;
  document.body.append(holder);
  const svg = holder.querySelector('svg');
  const origin = svg.getBoundingClientRect();
  const markers = [...svg.querySelectorAll('g.legend-kind')].map((g) => {
    const r = g.querySelector('path').getBoundingClientRect();
    return { kind: g.dataset.kind, shape: g.dataset.shape, cx: r.x + r.width / 2 - origin.x, cy: r.y + r.height / 2 - origin.y, side: Math.max(r.width, r.height) };
  });
  holder.remove();
  const img = new Image();
  img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  const ctx = c.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, c.width, c.height);
  ctx.drawImage(img, 0, 0);
  const all = ctx.getImageData(0, 0, c.width, c.height).data;
  let coloured = 0;
  for (let i = 0; i < all.length; i += 4) if (Math.max(all[i], all[i + 1], all[i + 2]) - Math.min(all[i], all[i + 1], all[i + 2]) > 3) coloured++;
  // Each marker's square (the largest marker's side), as dark-or-not pixels.
  const side = Math.ceil(Math.max(...markers.map((m) => m.side)) * 1.15);
  const masks = markers.map((m) => {
    const d = ctx.getImageData(Math.round(m.cx - side / 2), Math.round(m.cy - side / 2), side, side).data;
    const mask = [];
    for (let i = 0; i < d.length; i += 4) mask.push((d[i] + d[i + 1] + d[i + 2]) / 3 < 200 ? 1 : 0);
    return mask;
  });
  return { markers, masks, coloured };
}, text);

test('Greyscale export: no colour left, and the legend\'s kind markers still differ by shape', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heal&step=75');
  await page.locator('summary', { hasText: 'Export picture…' }).click();
  await page.getByLabel('Picture colours').selectOption('grey');
  await page.getByLabel('Picture width').selectOption('1920');
  const svg = await download(page, 'Download SVG');
  const text = svg.bytes.toString('utf8');
  const hexes = [...text.matchAll(/#([0-9a-fA-F]{6})\b/g)].map((m) => m[1].toLowerCase());
  assert.ok(hexes.length > 0 && hexes.every((h) => h.slice(0, 2) === h.slice(2, 4) && h.slice(2, 4) === h.slice(4, 6)), `greys only: ${[...new Set(hexes)].filter((h) => !(h.slice(0, 2) === h.slice(2, 4) && h.slice(2, 4) === h.slice(4, 6)))}`);
  assert.ok(!/rgb\((?!(\d+), \1, \1\))/.test(text), 'no coloured rgb()');
  // The legend lists the node looks too.
  assert.ok(text.includes('data-look="leader"'), 'the leader\'s look');
  const { markers, masks, coloured } = await legendPixels(page, text);
  assert.equal(coloured, 0, 'every pixel is grey');
  assert.ok(markers.length >= 3, `three kinds or more in flight: ${markers.map((m) => m.kind)}`);
  assert.equal(new Set(markers.map((m) => m.shape)).size, markers.length, 'a shape per kind');
  for (let i = 0; i < masks.length; i++) {
    assert.ok(masks[i].some((v) => v), `${markers[i].kind}: its marker is drawn`);
    for (let j = i + 1; j < masks.length; j++) {
      const differ = masks[i].filter((v, p) => v !== masks[j][p]).length / masks[i].length;
      assert.ok(differ > 0.05, `${markers[i].kind} (${markers[i].shape}) and ${markers[j].kind} (${markers[j].shape}) differ in ${(differ * 100).toFixed(1)} % of their pixels`);
    }
  }
  // The TikZ of the step, for LaTeX notes (compiled by pdflatex in the native tests).
  const tex = await download(page, 'Download TikZ');
  assert.equal(tex.file, 'election-lab-bully-heal-step75.tex');
  const source = tex.bytes.toString('utf8');
  assert.ok(source.includes('\\begin{tikzpicture}') && source.includes('{gray}'), 'greys in TikZ too');
  const st = await download(page, 'Download space-time TikZ');
  assert.equal(st.file, 'election-lab-bully-heal-spacetime-step75.tex');
  assert.ok(st.bytes.toString('utf8').includes('{t = 30}'), 'the space-time diagram up to the step shown');
  assert.deepEqual(errors, []);
});

test('Figure strip: chosen steps side by side with captions and one legend, SVG, PNG and TikZ', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heal&step=60');
  await page.locator('summary', { hasText: 'Export picture…' }).click();
  await page.getByLabel('Picture colours').selectOption('light');
  await page.getByLabel('Picture width').selectOption('2560');
  // A list that is not step numbers says which part is wrong, and downloads nothing.
  await page.getByLabel('Strip steps').fill('20, x');
  await page.getByRole('button', { name: 'Download strip SVG' }).click();
  assert.equal(await page.getByLabel('Strip steps').evaluate((i) => i.validationMessage), 'Not a step number: x');
  await page.getByLabel('Strip steps').fill('20, 50, 75');
  const svg = await download(page, 'Download strip SVG');
  assert.equal(svg.file, 'election-lab-bully-heal-steps20-50-75.svg');
  const text = svg.bytes.toString('utf8');
  assert.ok(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg" width="2560"'), text.slice(0, 100));
  for (const s of [20, 50, 75]) assert.match(text, new RegExp(`>step ${s} · t = \\d+</text>`));
  assert.equal((text.match(/<svg/g) ?? []).length, 4, 'three drawings in the strip');
  const parsed = await page.evaluate((t) => new DOMParser().parseFromString(t, 'image/svg+xml').querySelector('parsererror')?.textContent ?? null, text);
  assert.equal(parsed, null);
  const png = await download(page, 'Download strip PNG');
  const [w, h] = pngSize(png.bytes);
  assert.equal(w, 2560);
  assert.ok(h > 600 && h < 1400, `a wide strip (${w} × ${h})`);
  await copyFile(join(SHOTS, `export-${png.file}`), join(SHOTS, 'export-strip.png'));
  const tex = await download(page, 'Download strip TikZ');
  assert.equal(tex.file, 'election-lab-bully-heal-steps20-50-75.tex');
  // The page is back at its step.
  await page.waitForFunction(() => document.querySelector('[data-testid="step"]')?.textContent === '60');
  // The open menu passes axe-core.
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  const found = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document.querySelector('.picture'), { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  assert.deepEqual(found, []);
  assert.deepEqual(errors, []);
});

test('A Chinese page\'s figure is captioned and its legend written in Chinese (the worker reads the Chinese catalog)', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heal&step=75&lang=zh');
  await page.locator('details.picture summary').click();
  const svg = await download(page, '下载 SVG');
  const text = svg.bytes.toString('utf8');
  assert.ok(/[\u4e00-\u9fff]/.test(text), 'Chinese text in the figure');
  assert.ok(!/>step \d+ · t = /.test(text), 'no English caption line');
  assert.deepEqual(errors, []);
});

// Picture export's DOM side (export_dom.js) is not part of the first load: it is fetched on the
// first figure. A failed fetch is named in an alert, the run goes on, and the next figure tries
// again.
test('Export picture loads its DOM side on the first figure; a failed load is named and the page goes on', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=ring-worst&step=3');
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.waitForLoadState('networkidle');
  const dom = /export_dom-[0-9a-f]{16}\.js$/;
  assert.ok(!fetched.some((p) => dom.test(p)), 'export_dom.js is not part of the first load');
  await page.route(dom, (route) => route.fulfill({ status: 404, body: 'gone' }));
  const summary = page.locator('summary', { hasText: 'Export picture…' });
  const menu = page.getByRole('group', { name: 'Export picture' });
  await summary.click();
  await menu.waitFor();
  await page.getByRole('button', { name: 'Download SVG' }).click();
  const alert = page.locator('.banner.error', { hasText: 'Picture export could not be loaded' });
  await alert.waitFor();
  // The page still runs: a step forward is taken.
  const before = Number(await page.getByTestId('step').textContent());
  await page.getByRole('button', { name: 'Step forward' }).click();
  await page.waitForFunction((b) => Number(document.querySelector('[data-testid=step]')?.textContent) === b + 1, before);
  // Asking again tries again (here it loads) and the file is made.
  await page.unroute(dom);
  if (!(await menu.isVisible())) await summary.click();
  const svg = await download(page, 'Download SVG');
  assert.equal(svg.file, `election-lab-ring-worst-step${before + 1}.svg`);
  assert.ok(fetched.filter((p) => dom.test(p)).length >= 2, 'fetched on the first figure, and again after the failure');
  assert.deepEqual(errors.filter((e) => !/404|Failed to load resource|dynamically imported module/.test(e)), []);
  await context.close();
});
