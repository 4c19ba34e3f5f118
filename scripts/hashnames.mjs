// Trunk names by a hash of their content the page's CSS, but not the files of the binaries it builds
// as workers, which all of them are (index.html chooses and loads them): the Bully player
// (`election-lab-bully.js`, `_bg.wasm`), the full player (`election-lab-www…`), the workbench
// (`election-lab-workbench…`) and the Web Worker (`lab-worker.js`, `_bg.wasm`, and its loader `lab-worker_loader.js`). Cached for a
// year, an old one could outlive a deploy beside a new page. Run by Trunk's post-build hook (after
// scripts/snippets.mjs, before the copies are compressed): each binary's glue and wasm get a
// hash of their content in their names, and what names them is rewritten to match — the glue's
// URL of its wasm, the worker's loader (which keeps its name: a few bytes fetched with
// `no-cache`, as the page itself is), and the bundles' loader in index.html; so do picture
// export's DOM side (`export_dom.js`), named in index.html, and the folder of first frames (`first/`),
// whose presets the loader's list `framed` names. index.html's comments (whole lines: `<!-- … -->` and `// …`),
// indentation and empty lines are left out of the page as it is served: they are for its readers here, and every reader of the page would
// download them (about 610 B gzip).
//
//   node scripts/hashnames.mjs STAGING_DIR
import { readFile, writeFile, rm, stat, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

const [stage] = process.argv.slice(2);
if (!stage || !(await stat(join(stage, 'index.html')).catch(() => null))) {
  console.error('usage: node scripts/hashnames.mjs STAGING_DIR (a built site with index.html)');
  process.exit(2);
}

/** `text` with `from` replaced by `to`, which must occur exactly `times` times (else the build
 *  stops: a renamed file nobody can find would leave a tool that never loads). */
function swap(text, from, to, where, times = 1) {
  const n = text.split(from).length - 1;
  if (n !== times) {
    console.error(`hashnames: ${where}: expected ${times} × ${from}, found ${n}`);
    process.exit(1);
  }
  return text.split(from).join(to);
}

let page = await readFile(join(stage, 'index.html'), 'utf8');
const named = [];
for (const bin of ['election-lab-bully', 'election-lab-www', 'election-lab-workbench', 'lab-worker']) {
  const glueFile = join(stage, `${bin}.js`);
  const wasmFile = join(stage, `${bin}_bg.wasm`);
  const loaderFile = join(stage, `${bin}_loader.js`);
  const wasm = await readFile(wasmFile);
  let glue = await readFile(glueFile, 'utf8');
  const hash = createHash('sha256').update(wasm).update(glue).digest('hex').slice(0, 16);
  const [newGlue, newWasm] = [`${bin}-${hash}.js`, `${bin}-${hash}_bg.wasm`];
  glue = swap(glue, `'${bin}_bg.wasm'`, `'${newWasm}'`, `${bin}.js`);
  await writeFile(join(stage, newGlue), glue);
  await writeFile(join(stage, newWasm), wasm);
  await rm(glueFile);
  await rm(wasmFile);
  const loader = await readFile(loaderFile, 'utf8').catch(() => null);
  if (loader !== null) {
    await writeFile(loaderFile, swap(loader, `'./${bin}.js'`, `'./${newGlue}'`, `${bin}_loader.js`));
  } else {
    page = swap(page, `'${bin}.js'`, `'${newGlue}'`, 'index.html');
    page = swap(page, `'${bin}_bg.wasm'`, `'${newWasm}'`, 'index.html');
  }
  named.push(newGlue, newWasm);
}
// Picture export's DOM side (copied by Trunk, fetched by the page on the first figure).
{
  const file = 'export_dom.js';
  const text = await readFile(join(stage, file));
  const newName = `export_dom-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.js`;
  await writeFile(join(stage, newName), text);
  await rm(join(stage, file));
  page = swap(page, `'${file}'`, `'${newName}'`, 'index.html');
  named.push(newName);
}
// The first frames (src/first_frames.rs): the folder gets a hash of all their names and contents.
{
  const names = (await readdir(join(stage, 'first'))).sort();
  const hash = createHash('sha256');
  for (const name of names) hash.update(name).update('\0').update(await readFile(join(stage, 'first', name))).update('\0');
  const folder = `first-${hash.digest('hex').slice(0, 16)}`;
  await rename(join(stage, 'first'), join(stage, folder));
  page = swap(page, `'first/'`, `'${folder}/'`, 'index.html');
  // The loader asks only for frames that exist (a damaged link's preset has none).
  const presets = names.filter((n) => n.endsWith('.en.html') && n !== 'index.en.html').map((n) => n.slice(0, -'.en.html'.length));
  page = swap(page, 'var framed = [];', `var framed = ${JSON.stringify(presets)};`, 'index.html');
  named.push(`${folder}/ (${names.length} files)`);
}
// The main app's stand-in (index.html: every wasm is loaded by the page's own loader).
page = page.replace(/<link[^>]*data-trunk-skip[^>]*>/, '');
page = page.replace(/^[ \t]*<!--[\s\S]*?-->[ \t]*\n/gm, '').replace(/^[ \t]*\/\/.*\n/gm, '').replace(/^[ \t]+/gm, '').replace(/\n\n+/g, '\n');
await writeFile(join(stage, 'index.html'), page);
console.log(`hashnames: ${named.join(', ')}`);
