// Trunk builds the page's three wasm binaries (the player, the workbench, the worker) from one
// crate at once, and wasm-bindgen writes each one's copy of the crate's JS snippets
// (`snippets/<crate>-<hash>/src/export.js`) to the same path: one binary's copy can be read while
// another's is being written, so the page may get a cut-off snippet or an `integrity` digest of
// one that the browser then refuses (the page stays blank). Run by Trunk's post-build hook after
// all of them: every snippet is made the source file it comes from, and each `integrity` the page
// gives a snippet is computed again from the file shipped.
//
//   node scripts/snippets.mjs STAGING_DIR SOURCE_DIR
import { readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { createHash } from 'node:crypto';

const [stage, source] = process.argv.slice(2);
if (!stage || !source || !(await stat(join(stage, 'index.html')).catch(() => null))) {
  console.error('usage: node scripts/snippets.mjs STAGING_DIR SOURCE_DIR (a built site with index.html, the repository)');
  process.exit(2);
}

async function* files(dir) {
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

const snippets = join(stage, 'snippets');
let page = await readFile(join(stage, 'index.html'), 'utf8');
let mended = 0;
for await (const p of files(snippets)) {
  if (p.endsWith('.gz') || p.endsWith('.br')) continue;
  // snippets/<crate>-<hash>/src/x.js comes from www/src/x.js (the app crate is the only one with
  // snippets).
  const inCrate = relative(snippets, p).split('/').slice(1).join('/');
  const from = join(source, 'www', inCrate);
  const want = await readFile(from).catch(() => null);
  if (!want) {
    console.error(`snippets: ${relative(stage, p)}: no source file ${relative(source, from)}`);
    process.exit(1);
  }
  if (!(await readFile(p)).equals(want)) {
    await writeFile(p, want);
    mended += 1;
  }
  const href = './' + relative(stage, p);
  const digest = 'sha384-' + createHash('sha384').update(want).digest('base64');
  const link = new RegExp(`(href="${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"[^>]*integrity=")[^"]*(")`);
  page = page.replace(link, `$1${digest}$2`);
}
await writeFile(join(stage, 'index.html'), page);
console.log(`snippets: ${mended} mended; integrity checked`);
