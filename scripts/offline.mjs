// `make offline`: the release build in dist/ as ONE self-contained HTML file that works opened
// from disk (file://) and uploaded to a course platform (an LMS takes one file, not a folder).
//
// Browsers refuse module scripts and fetch() from file:// (the page's origin is opaque), so
// nothing may be loaded by URL:
// * the stylesheets become <style> elements;
// * the wasm-bindgen glue and its snippets become data: URL modules (a data: module is allowed
//   from any page; the glue's import of a snippet is rewritten to the snippet's data: URL);
// * the wasm (the full player's: every family and the lessons) is base64 text in the page,
//   decoded and handed to the glue's init as bytes, in place of the bundles' loader;
// * the course (dist/course.json and the lessons under dist/lessons/, which the served page
//   fetches when a lesson opens) is inlined as one JSON script element, `#election-lab-lessons`,
//   which the page reads first.
// No font is loaded by the page (system fonts only), so there is none to subset.
//
// It reuses dist/ as it is (no second build): `node scripts/offline.mjs [dist] [out.html]`.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dataUrl = (mime, text) => `data:${mime};base64,${Buffer.from(text).toString('base64')}`;

/** What a <script> element may hold: no `</script` (nor `<!--`) inside. */
const scriptSafe = (text) => text.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');

/** The course as the page reads it offline: `{course: [...course.json], lessons: {id: lesson}}`. */
async function lessons(dist) {
  const course = JSON.parse(await readFile(join(dist, 'course.json'), 'utf8'));
  const out = {};
  for (const e of course) out[e.id] = JSON.parse(await readFile(join(dist, 'lessons', e.file), 'utf8'));
  return { course, lessons: out };
}

/** Builds the single file from `dist` and returns its text. */
export async function buildOffline(dist) {
  let html = await readFile(join(dist, 'index.html'), 'utf8');
  const must = (m, what) => {
    if (!m) throw new Error(`offline: ${what} not found in ${join(dist, 'index.html')} (run trunk build --release first)`);
    return m;
  };
  // Stylesheets, inlined in place (their order is the cascade's).
  const sheets = [...html.matchAll(/<link rel="stylesheet" href="\.\/([^"]+\.css)"[^>]*>/g)];
  for (const [tag, file] of sheets) {
    const css = await readFile(join(dist, file), 'utf8');
    html = html.replace(tag, () => `<style>${css.replace(/<\/(style)/gi, '<\\/$1')}</style>`);
  }
  // Preloads point at files that will not be there.
  html = html.replace(/<link rel="(modulepreload|preload)"[^>]*>/g, '');
  // The bundles' loader chooses a bundle and fetches it: here it is replaced by the full player
  // (every family and the lessons), inlined.
  const loader = must([...html.matchAll(/<script>[\s\S]*?<\/script>/g)].find((m) => m[0].includes('window.electionLabLoad = function')), 'the bundles\' loader');
  const player = must(loader[0].match(/player: \['([^']+\.js)', '([^']+\.wasm)'\]/), 'the full player\'s files');
  const [glueFile, wasmFile] = [player[1], player[2]];
  let glue = await readFile(join(dist, glueFile), 'utf8');
  // Each snippet import ('./snippets/…/x.js', in either quotes: wasm-bindgen also writes
  // `import * as import1 from "…"`) becomes an import of that snippet's data: URL.
  const snippetImports = [...glue.matchAll(/from (['"])\.\/(snippets\/[^'"]+\.js)\1/g)];
  for (const [text, , file] of snippetImports) {
    const code = await readFile(join(dist, file), 'utf8');
    glue = glue.replace(text, () => `from '${dataUrl('text/javascript', code)}'`);
  }
  const wasm = await readFile(join(dist, wasmFile));
  const course = await lessons(dist);
  const boot = `<script type="module">
const text = document.getElementById('election-lab-wasm').textContent;
const raw = atob(text);
const bytes = new Uint8Array(raw.length);
for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
const bindings = await import(${JSON.stringify(dataUrl('text/javascript', glue))});
const wasm = await bindings.default({ module_or_path: bytes });
window.wasmBindings = bindings;
window.electionLabLoad = (name) => Promise.reject(new Error(name + ': not in the offline file'));
dispatchEvent(new CustomEvent("TrunkApplicationStarted", {detail: {wasm}}));
</script>`;
  const data =
    `<script type="application/octet-stream" id="election-lab-wasm">${wasm.toString('base64')}</script>\n` +
    `<script type="application/json" id="election-lab-lessons">${scriptSafe(JSON.stringify(course))}</script>\n`;
  html = html.replace(loader[0], () => data + boot);
  if (/(href|src)="\.\//.test(html)) throw new Error('offline: a relative URL is left in the page');
  return { html, lessons: Object.keys(course.lessons).length, wasmBytes: wasm.length };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const dist = process.argv[2] || join(root, 'dist');
  const out = process.argv[3] || join(root, 'dist-offline', 'election-lab.html');
  const { html, lessons: n } = await buildOffline(dist);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, html);
  console.log(`${out}: ${html.length} bytes, ${n} lessons inlined`);
}
