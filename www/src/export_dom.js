// The DOM side of picture export (src/export.rs builds the picture around what this returns),
// fetched on the first figure through src/export.js (not part of the first load).
// In JS rather than Rust + web-sys: walking computed styles and stylesheets, and the PNG's
// image → canvas → blob round trip, cost about 7 KB gzip of wasm written in Rust, a few hundred
// bytes here.

/** Properties SVG inherits: written on an element only where they differ from its parent. */
const INHERITED = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'stroke-opacity',
  'stroke-linecap', 'stroke-linejoin', 'font-family', 'font-size', 'font-weight', 'text-anchor',
  'dominant-baseline', 'paint-order', 'visibility'];
/** Properties that do not inherit, with their initial value (written when different). */
const OWN = [['opacity', '1']];
/** Parts of the canvas that are only there to be clicked or dragged. */
const INTERACTIVE = '.dot-hit, .cut-hit, .cut-remove, .backdrop, .cut-preview';

/** The page's colour-scheme custom properties as a style text: `:root`'s, plus, for dark, those
 *  of `:root` inside `@media (prefers-color-scheme: dark)`. */
function schemeVars(dark) {
  const base = [];
  const over = [];
  const take = (rules, inDark) => {
    for (const r of rules) {
      if (r instanceof CSSStyleRule && r.selectorText.trim() === ':root') {
        for (const name of r.style) {
          if (name.startsWith('--')) (inDark ? over : base).push(`${name}:${r.style.getPropertyValue(name).trim()}`);
        }
      } else if (r instanceof CSSMediaRule && /prefers-color-scheme\s*:\s*dark/.test(r.media.mediaText)) {
        take(r.cssRules, true);
      }
    }
  };
  for (const sheet of document.styleSheets) {
    try { take(sheet.cssRules, false); } catch { /* a stylesheet from another origin cannot be read */ }
  }
  return (dark ? base.concat(over) : base).join(';');
}

/** Writes `live`'s computed styles inline on `copy` (a deep clone of it), recursively. */
function inline(live, copy, parent) {
  const cs = getComputedStyle(live);
  const values = INHERITED.map((p) => cs.getPropertyValue(p));
  let style = '';
  INHERITED.forEach((p, i) => { if (values[i] && (!parent || parent[i] !== values[i])) style += `${p}:${values[i]};`; });
  for (const [p, initial] of OWN) {
    const v = cs.getPropertyValue(p);
    if (v && v !== initial) style += `${p}:${v};`;
  }
  for (const a of ['style', 'role', 'tabindex', 'aria-label']) copy.removeAttribute(a);
  if (style) copy.setAttribute('style', style);
  for (let k = 0; k < live.children.length && k < copy.children.length; k++) inline(live.children[k], copy.children[k], values);
}

/** The canvas of `lane` with its styles inline, serialised, and the picture's colours and font:
 *  [markup, background, ink, muted, bad, font, leader, candidate, waiting, node, line, crashed]; null without such a canvas. `scheme`: "" keeps
 *  the page's colours; "light" or "dark" sets that scheme's custom properties on the canvas's
 *  box while its styles are read, then takes them off. */
export function canvasMarkup(lane, scheme) {
  const svg = document.querySelector(`svg.canvas[data-lane="${CSS.escape(lane)}"]`);
  const box = svg && svg.parentElement;
  if (!box) return null;
  const old = box.getAttribute('style');
  if (scheme) box.setAttribute('style', `${old ?? ''};${schemeVars(scheme === 'dark')}`);
  try {
    const copy = svg.cloneNode(true);
    inline(svg, copy, null);
    const cs = getComputedStyle(box);
    const v = (name, or) => cs.getPropertyValue(name).trim() || or;
    // `--ink`, not `color`: the box inherits `color` already resolved at the page's root.
    const ink = v('--ink', v('color', '#1d1d1f'));
    const look = [v('background-color', '#ffffff'), ink, v('--muted', ink), v('--bad', '#b3261e'), v('font-family', 'sans-serif'),
      // The node looks' colours, for the legend's swatches.
      v('--leader', '#0072B2'), v('--candidate', '#E69F00'), v('--waiting', '#CC79A7'), v('--node', '#ffffff'),
      v('--line', '#d6d6d2'), v('--crashed', '#9e9e9e')];
    copy.querySelectorAll(INTERACTIVE).forEach((e) => e.remove());
    copy.removeAttribute('class');
    copy.removeAttribute('preserveAspectRatio');
    copy.setAttribute('width', '1000');
    copy.setAttribute('height', '1000');
    return [new XMLSerializer().serializeToString(copy), ...look];
  } finally {
    if (scheme) {
      if (old === null) box.removeAttribute('style');
      else box.setAttribute('style', old);
    }
  }
}

function save(name, blob) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

/** Offers `text` as an SVG file. */
export function saveSvg(name, text) {
  save(name, new Blob([text], { type: 'image/svg+xml' }));
}

/** Offers `text` as a LaTeX file. */
export function saveTex(name, text) {
  save(name, new Blob([text], { type: 'application/x-tex' }));
}

/** Draws the SVG `text` into an image, onto a canvas `width` × `height`, and offers the PNG. */
export function savePng(name, text, width, height) {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  img.decode()
    .then(() => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      canvas.getContext('2d').drawImage(img, 0, 0, width, height);
      return new Promise((ok, fail) => canvas.toBlob((b) => (b ? ok(b) : fail(new Error('no PNG'))), 'image/png'));
    })
    .then((blob) => save(name, blob))
    .catch((e) => console.error('Export picture: the PNG could not be made', e));
}

// ----- animated PNG (APNG): frames rasterised like savePng, then their image data joined -----

const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC of type + data. */
function chunk(type, data) {
  const out = new Uint8Array(12 + data.length);
  const v = new DataView(out.buffer);
  v.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The chunks of a PNG file: [{type, data}]. */
function chunks(bytes) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = [];
  for (let at = 8; at + 8 <= bytes.length;) {
    const len = v.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    out.push({ type, data: bytes.subarray(at + 8, at + 8 + len) });
    at += 12 + len;
  }
  return out;
}

function u32s(...values) {
  const out = new Uint8Array(values.length * 4);
  const v = new DataView(out.buffer);
  values.forEach((x, i) => v.setUint32(4 * i, x));
  return out;
}

async function pngBytes(text, width, height) {
  const img = new Image();
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await img.decode();
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  canvas.getContext('2d').drawImage(img, 0, 0, width, height);
  const blob = await new Promise((ok, fail) => canvas.toBlob((b) => (b ? ok(b) : fail(new Error('no PNG'))), 'image/png'));
  return new Uint8Array(await blob.arrayBuffer());
}

/** Rasterises the SVG pictures `texts` (one per step) and offers them as one animated PNG that
 *  shows each for `delayMs` and loops. Browsers show APNG natively; slides take it as an image. */
export async function saveApng(name, texts, width, height, delayMs) {
  try {
    const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10])];
    let seq = 0;
    for (let i = 0; i < texts.length; i++) {
      const cs = chunks(await pngBytes(texts[i], width, height));
      if (i === 0) {
        parts.push(chunk('IHDR', cs.find((c) => c.type === 'IHDR').data));
        parts.push(chunk('acTL', u32s(texts.length, 0)));
      }
      const fc = new Uint8Array(26);
      fc.set(u32s(seq++, width, height, 0, 0));
      new DataView(fc.buffer).setUint16(20, delayMs);
      new DataView(fc.buffer).setUint16(22, 1000);
      parts.push(chunk('fcTL', fc));
      for (const c of cs.filter((c) => c.type === 'IDAT')) {
        if (i === 0) parts.push(chunk('IDAT', c.data));
        else {
          const d = new Uint8Array(4 + c.data.length);
          d.set(u32s(seq++));
          d.set(c.data, 4);
          parts.push(chunk('fdAT', d));
        }
      }
    }
    parts.push(chunk('IEND', new Uint8Array(0)));
    save(name, new Blob(parts, { type: 'image/png' }));
  } catch (e) {
    console.error('Export animation: the APNG could not be made', e);
  }
}

// ----- figures, made in the page's Web Worker (src/export/job.rs: the writers are in its wasm) -----

/** The drawings grabbed for the next figure (canvasMarkup's arrays, one a step). */
let grabbed = [];
let worker = null;
/** Jobs waiting for the worker to say it is ready (null once it has). */
let waiting = null;

/** Grabs the canvas of `lane` (as canvasMarkup) for the next figure; false without the canvas. */
export function grabFor(lane, scheme) {
  const g = canvasMarkup(lane, scheme);
  if (g) grabbed.push(g);
  return !!g;
}

/** Hands a figure's job (JSON text; the drawings grabbed since the last are added to it) to the
 *  worker at `loader`, started on the first figure and kept for the next, and offers the file
 *  it makes. */
export function postFigure(loader, jobText) {
  const job = JSON.parse(jobText);
  job.grabs = grabbed;
  grabbed = [];
  const text = JSON.stringify(job);
  if (!worker) {
    worker = new Worker(loader, { type: 'module' });
    waiting = [];
    worker.onmessage = (e) => {
      const r = JSON.parse(e.data);
      if (r.kind === 'ready') {
        waiting.forEach((t) => worker.postMessage(t));
        waiting = null;
      } else if (r.error) console.error('Export:', r.error);
      else if (r.format === 'apng') saveApng(r.name, r.texts, r.width, r.height, r.delay);
      else if (r.format === 'png') savePng(r.name, r.texts[0], r.width, r.height);
      else if (r.format === 'tex') saveTex(r.name, r.texts[0]);
      else saveSvg(r.name, r.texts[0]);
    };
    worker.onerror = (e) => console.error('Export: the worker could not run', e.message);
  }
  if (waiting) waiting.push(text);
  else worker.postMessage(text);
}
