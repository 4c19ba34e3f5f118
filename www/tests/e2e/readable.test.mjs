// Readable at every size: text keeps a minimum size on screen in a 640×420 embed, the embed's
// narration shows two lines, labels overlap no node and no other label at N = 8 and N = 16, each
// message kind has its own colour and shape, everything drawn is in the legend, and compare
// lanes have arrows, labels, legends and the focused lane's narration, also in a 640×420 embed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const EMBED = { width: 640, height: 420 };

/** The smallest text of the canvas on screen: its font size times the drawing's scale, and the
 * height of its box as the browser lays it out (both in CSS pixels). */
const smallestText = (page, root = 'svg.canvas') => page.evaluate((root) => {
  let font = Infinity, box = Infinity, which = '';
  for (const svg of document.querySelectorAll(root)) {
    const scale = svg.getScreenCTM().a;
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || !t.textContent.trim()) continue;
      const f = parseFloat(getComputedStyle(t).fontSize) * scale;
      if (f < font) { font = f; which = t.textContent; }
      box = Math.min(box, r.height);
    }
  }
  return { font, box, which };
}, root);

/** Pairs of drawn labels (node labels, dot labels) that overlap each other or a node's disc, on
 * screen, with a pixel of tolerance for antialiasing. */
const overlaps = (page) => page.evaluate(() => {
  const shrink = (r, d) => ({ l: r.left + d, t: r.top + d, r: r.right - d, b: r.bottom - d });
  const hit = (a, b) => a.l < b.r && b.l < a.r && a.t < b.b && b.t < a.b;
  const labels = [...document.querySelectorAll('svg.canvas .node text.view, svg.canvas .node text.sub, svg.canvas .dot-label')]
    .map((t) => ({ t: t.textContent, box: shrink(t.getBoundingClientRect(), 1) }));
  const discs = [...document.querySelectorAll('svg.canvas [data-node]')].map((g) => {
    const c = g.querySelector('circle.disc').getBoundingClientRect();
    return { id: g.dataset.node, cx: (c.left + c.right) / 2, cy: (c.top + c.bottom) / 2, r: c.width / 2 };
  });
  const out = [];
  for (let i = 0; i < labels.length; i++) {
    for (let j = i + 1; j < labels.length; j++) {
      if (hit(labels[i].box, labels[j].box)) out.push(`"${labels[i].t}" × "${labels[j].t}"`);
    }
    for (const d of discs) {
      const b = labels[i].box;
      const dx = d.cx - Math.max(b.l, Math.min(d.cx, b.r));
      const dy = d.cy - Math.max(b.t, Math.min(d.cy, b.b));
      if (dx * dx + dy * dy < (d.r - 1) ** 2) out.push(`"${labels[i].t}" × N${d.id}`);
    }
  }
  return { out, labels: labels.length };
});

test('a 640×420 embed: the smallest canvas text is at least 11 px on screen, the narration shows two lines', async () => {
  for (const lang of ['en', 'zh']) {
    for (const q of [`?preset=bully-worst-8&step=30&embed=1&lang=${lang}`, `?preset=gossip-16&step=40&embed=1&lang=${lang}`]) {
      const { page, errors, context } = await open(browser, server.url + q, EMBED);
      const s = smallestText(page);
      const { font, box, which } = await s;
      assert.ok(font >= 11, `${q}: "${which}" is ${font.toFixed(1)} px`);
      assert.ok(box >= 11, `${q}: a text box ${box.toFixed(1)} px high`);
      const n = page.getByTestId('narration');
      const [h, line] = await n.evaluate((e) => [e.clientHeight, parseFloat(getComputedStyle(e).lineHeight)]);
      assert.ok(h >= 2 * line, `${q}: the narration is ${h} px high, two lines are ${2 * line}`);
      const frame = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
      assert.ok(frame[0] <= 640 && frame[1] <= 420, `${q}: everything inside the frame (${frame})`);
      await shot(page, `readable-embed-${q.includes('gossip') ? 'gossip16' : 'bully8'}-${lang}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});

test('labels overlap no node and no other label: Bully N = 8, gossip and HS N = 16, both languages, large and embedded', async () => {
  const cases = [
    ['bully-worst-8', [8, 14, 20, 26, 33, 40]],
    ['gossip-16', [10, 25, 40, 60]],
    ['hs-phases-16', [20, 60, 120, 200]],
  ];
  for (const [preset, steps] of cases) {
    for (const [lang, viewport] of [['en', undefined], ['zh', undefined], ['en', EMBED]]) {
      for (const s of steps) {
        const embed = viewport ? '&embed=1' : '';
        const { page, errors, context } = await open(browser, server.url + `?preset=${preset}&step=${s}&lang=${lang}${embed}`, viewport);
        const { out, labels } = await overlaps(page);
        assert.deepEqual(out, [], `${preset} step ${s} (${lang}${embed})`);
        assert.ok(labels > 0, 'labels are drawn');
        if (s === steps[1]) await shot(page, `readable-${preset}-${s}-${lang}${embed ? '-embed' : ''}`);
        assert.deepEqual(errors, []);
        await context.close();
      }
    }
  }
});

test('in a 640×420 embed the banners (a leader per group, split brain) cover no node; the fenced store fits its texts', async () => {
  for (const lang of ['en', 'zh']) {
    for (const q of ['?preset=gossip-16&step=40', '?preset=fencing-tokens&step=370']) {
      const { page, errors, context } = await open(browser, server.url + `${q}&embed=1&lang=${lang}`, EMBED);
      const banners = page.locator('.embed-banners .banner');
      assert.ok(await banners.count() > 0, `${q} (${lang}): a banner is shown`);
      const covered = await page.evaluate(() => {
        const out = [];
        for (const b of document.querySelectorAll('.embed-banners .banner')) {
          const r = b.getBoundingClientRect();
          for (const g of document.querySelectorAll('svg.canvas [data-node]')) {
            const disc = g.querySelector('circle.disc');
            if (!disc) continue;
            const c = disc.getBoundingClientRect();
            if (r.left < c.right && c.left < r.right && r.top < c.bottom && c.top < r.bottom) out.push(`N${g.dataset.node}`);
          }
        }
        return out;
      });
      assert.deepEqual(covered, [], `${q} (${lang}): nodes under a banner`);
      if (q.includes('fencing')) {
        // The fenced store's texts keep their size on screen: its box grows with them, and the
        // labels are placed clear of it.
        const store = await page.evaluate(() => {
          const box = document.querySelector('.store-box').getBoundingClientRect();
          const inside = (r) => r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
          const hit = (r) => r.left < box.right && box.left < r.right && r.top < box.bottom && box.top < r.bottom;
          const texts = [...document.querySelectorAll('g.store > text')].filter((t) => !inside(t.getBoundingClientRect())).map((t) => t.textContent);
          const labels = [...document.querySelectorAll('svg.canvas .node text.view, svg.canvas .node text.sub, svg.canvas .dot-label')]
            .filter((t) => t.textContent.trim() && hit(t.getBoundingClientRect())).map((t) => t.textContent);
          return { texts, labels };
        });
        assert.deepEqual(store, { texts: [], labels: [] }, `${q} (${lang}): store texts outside its box, labels over it`);
      }
      await shot(page, `readable-embed-banner-${q.includes('gossip') ? 'gossip16' : 'split-brain'}-${lang}`);
      assert.deepEqual(errors, []);
      await context.close();
    }
  }
});

test('labels that would pile up fold into a count; the folded messages are named on hover', async () => {
  // Bully's worst case: every node answers OK to the same node at once.
  let folded = 0;
  for (let s = 1; s <= 45 && folded === 0; s += 1) {
    const { page, context } = await open(browser, server.url + `?preset=bully-worst-8&step=${s}`);
    const f = page.locator('.dot-label.folded');
    if (await f.count()) {
      folded = Number(await f.first().getAttribute('data-count'));
      assert.match(await f.first().textContent(), /×\d|\+\d/);
      const title = await f.first().evaluate((t) => document.querySelector(`g.dot[data-id="${t.dataset.for}"] title`).textContent);
      assert.equal((title.match(/\n\+ #/g) || []).length, folded - 1, 'the tooltip lists the folded messages');
      await shot(page, 'readable-folded');
    }
    await context.close();
  }
  assert.ok(folded > 1, 'some step of Bully N = 8 folds labels');
});

test('every message kind has its own colour and shape; the legend shows both and every extra drawn', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-raft&step=20');
  const kinds = await page.locator('.legend-kind').evaluateAll((els) => els.map((li) => {
    const svg = li.querySelector('svg');
    return [li.dataset.kind, svg.querySelector('path').getAttribute('fill'), svg.querySelector('path').getAttribute('d'), svg.querySelector('line').getAttribute('stroke-dasharray')];
  }));
  assert.ok(kinds.length >= 6, `Raft's kinds: ${kinds.length}`);
  assert.equal(new Set(kinds.map((k) => k[1])).size, kinds.length, `colours ${JSON.stringify(kinds)}`);
  // Greyscale keeps shape and dash: each kind has its own pair (seven shapes; kinds past the
  // seventh repeat a shape with another dash), and the first seven differ by shape alone.
  assert.equal(new Set(kinds.map((k) => k[2] + ' ' + k[3])).size, kinds.length, 'shape and dash: the cues that survive greyscale');
  assert.equal(new Set(kinds.slice(0, 7).map((k) => k[2])).size, Math.min(kinds.length, 7), 'shapes');
  assert.equal(new Set(kinds.slice(0, 7).map((k) => k[3])).size, Math.min(kinds.length, 7), 'edge dashes');
  // Drawn dots wear their kind's shape and colour.
  const dots = await page.locator('g.dot').evaluateAll((gs) => gs.map((g) => [g.dataset.msg, g.dataset.shape]));
  const byKind = new Map();
  for (const [k, s] of dots) { if (byKind.has(k)) assert.equal(byKind.get(k), s); byKind.set(k, s); }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.addStyleTag({ content: 'html { filter: grayscale(1); }' });
  await shot(page, 'readable-raft-greyscale');
  // Extras: each algorithm's drawing is named in its legend.
  for (const [preset, step, extra, drawn] of [
    ['gossip-16', 30, 'tint', '.tint'],
    ['hs-phases-16', 40, 'reach-arc', '.reach-arc'],
    ['invitation-figure', 25, 'group-hull', '.group-hull'],
    ['candidates-figure', 10, 'group-hull', '.group-hull'],
    ['token-ring-partition', 120, 'halo', '.halo, .region'],
  ]) {
    const o = await open(browser, server.url + `?preset=${preset}&step=${step}`);
    const n = await o.page.locator(`svg.canvas ${drawn}`).count();
    if (n > 0) {
      assert.equal(await o.page.locator(`.legend-extra[data-extra="${extra}"]`).count(), 1, `${preset} draws ${drawn}: in the legend`);
    } else {
      assert.equal(await o.page.locator(`.legend-extra[data-extra="${extra}"]`).count(), 0, `${preset}: not drawn, not listed`);
    }
    errors.push(...o.errors);
    await o.context.close();
  }
  assert.deepEqual(errors, []);
});

test('compare lanes draw arrows and kind labels, each has a legend, the focused lane narrates', async () => {
  const { page, errors } = await open(browser, server.url + '?compare=bully,raft&preset=split-brain-bully&time=3');
  const lanes = page.locator('section.lane');
  assert.equal(await lanes.count(), 2);
  for (let k = 0; k < 2; k++) {
    const lane = lanes.nth(k);
    assert.ok(await lane.locator('.legend-panel .legend-kind').count() > 0, `lane ${k + 1} has a legend`);
  }
  const edges = await page.locator('section.lane .msg-edge').count();
  const labels = await page.locator('section.lane .dot-label').count();
  const dots = await page.locator('section.lane g.dot').count();
  assert.ok(dots > 0, 'messages in flight at t = 3');
  assert.equal(edges, dots, 'an arrow under every dot');
  assert.ok(labels > 0, 'kind labels');
  const narration = page.getByTestId('lane-narration');
  assert.match(await narration.textContent(), /Bully/);
  await lanes.nth(1).hover();
  await page.waitForFunction(() => /Raft/.test(document.querySelector('[data-testid="lane-narration"]').textContent));
  await shot(page, 'readable-compare-lanes');
  assert.deepEqual(errors, []);
});

test('the compare embed fits 640×420: lanes, narration, controls and table all inside', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, errors, context } = await open(browser, server.url + `?compare=bully,raft&preset=split-brain-bully&time=30&embed=1&lang=${lang}`, EMBED);
    for (const sel of ['section.lane', '[data-testid="lane-narration"]', '.controls', '[data-testid="compare-table"]']) {
      const boxes = await page.locator(sel).evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }));
      assert.ok(boxes.length > 0, sel);
      for (const [l, t, r, b] of boxes) assert.ok(l >= -0.5 && t >= -0.5 && r <= 640.5 && b <= 420.5, `${sel} at ${[l, t, r, b].map(Math.round)} (${lang})`);
    }
    const { font } = await smallestText(page, 'section.lane svg.canvas');
    assert.ok(font >= 11, `lane text ${font.toFixed(1)} px`);
    await shot(page, `readable-compare-embed-${lang}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
