// The DOM side of picture export (src/export.rs builds the picture around what this returns).
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
 *  [markup, background, ink, muted, bad, font]; null without such a canvas. `scheme`: "" keeps
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
    const look = [v('background-color', '#ffffff'), ink, v('--muted', ink), v('--bad', '#b3261e'), v('font-family', 'sans-serif')];
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
