// Writes `NAME.gz` (gzip -9) and `NAME.br` (Brotli, quality 11) beside every compressible file of
// a built site (Trunk's post-build hook runs it on the staging directory, so `dist/` has them),
// for static hosts that serve a precompressed file when the browser accepts its encoding
// (nginx `gzip_static`/`brotli_static`, Caddy `precompressed`, Netlify and Cloudflare Pages do
// it themselves; see the guide's hosting chapter). Each compressed file is read back and
// compared with its source before it is kept: a host never serves a damaged copy.
//
//   node scripts/precompress.mjs DIR
import { readdir, readFile, writeFile, stat } from 'node:fs/promises';
import { join, extname } from 'node:path';
import { gzipSync, gunzipSync, brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

const COMPRESSIBLE = new Set(['.wasm', '.js', '.mjs', '.css', '.html', '.json', '.svg', '.txt', '.xml', '.map']);
// Below this a compressed copy saves less than a request's headers.
const SMALLEST = 1024;

async function* files(dir) {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (e.isFile()) yield p;
  }
}

const dir = process.argv[2];
if (!dir || !(await stat(dir).catch(() => null))?.isDirectory()) {
  console.error('usage: node scripts/precompress.mjs DIR (a built site, e.g. dist)');
  process.exit(2);
}
let count = 0;
for await (const p of files(dir)) {
  if (!COMPRESSIBLE.has(extname(p))) continue;
  const raw = await readFile(p);
  if (raw.length < SMALLEST) continue;
  const gz = gzipSync(raw, { level: 9 });
  const br = brotliCompressSync(raw, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  if (!gunzipSync(gz).equals(raw) || !brotliDecompressSync(br).equals(raw)) {
    console.error(`precompress: ${p}: a compressed copy does not read back to the file`);
    process.exit(1);
  }
  await writeFile(p + '.gz', gz);
  await writeFile(p + '.br', br);
  count += 1;
}
console.log(`precompress: .gz and .br beside ${count} files of ${dir}`);
