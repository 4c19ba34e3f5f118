// Benchmark of "Check every schedule" in the page against the same exploration natively (section
// 9 of browser.mjs; `node tests/bench/check.mjs` runs it alone). Not a test: it prints figures for
// docs/performance.md. Raft with 3 nodes (the guide's raft3.json), one leader per term, no
// faults, asynchronous time, to a depth: the page's check runs in its Web Worker (wasm, opened
// from a link to the scenario, bounds set through the panel) and is timed from the click to the
// verdict; the release CLI (`election-lab check-model`, built with `cargo build --release -p
// election-lab`; ELECTION_LAB=path to choose another) explores the same space, timed by
// `/usr/bin/time` (user + system CPU, and wall). Both must report the same number of unique
// states. Prints states per second for each and the ratio.
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { writeFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { whenMain } from '../e2e/harness.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const RAFT3 = '{"algorithm":"raft","nodes":[1,2,3],"seed":1,"heartbeats":{"interval":3,"timeout":12}}';

function cli() {
  const target = process.env.CARGO_TARGET_DIR || join(here, '..', '..', '..', 'target');
  const bin = process.env.ELECTION_LAB || join(target, 'release', 'election-lab');
  if (!existsSync(bin)) throw new Error(`${bin}: build it first (cargo build --release -p election-lab) or set ELECTION_LAB`);
  return bin;
}

/** The native check: [unique states, CPU seconds, wall seconds]. */
function native(bin, file, depth) {
  const times = join(tmpdir(), `check-bench-${process.pid}.time`);
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S %e', '-o', times, bin, 'check-model', file,
    '--property', 'two-leaders-in-term', '--depth', String(depth)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`check-model: exit ${r.status}: ${r.stderr}`);
  const [user, sys, wall] = readFileSync(times, 'utf8').trim().split(/\s+/).map(Number);
  return [JSON.parse(r.stdout).states, user + sys, wall];
}

/** The page's check: [unique states, seconds from the click to the verdict]. */
async function inPage(page, url, depth) {
  await page.goto(url);
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  const panel = page.getByTestId('check-every');
  await panel.getByTestId('check-depth').fill(String(depth));
  await panel.getByTestId('check-depth').dispatchEvent('change');
  const ms = await page.evaluate(() => new Promise((done) => {
    const t0 = performance.now();
    document.querySelector('[data-testid="check-run"]').click();
    const tick = () => {
      const s = document.querySelector('[data-testid="check-status"]');
      if (s && s.dataset.status !== 'running') done([performance.now() - t0, s.dataset.status, Number(s.dataset.states)]);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
  if (ms[1] !== 'holds') throw new Error(`the page's check ended ${ms[1]}`);
  return [ms[2], ms[0] / 1000];
}

export async function benchCheck(browser, server, depth = Number(process.env.CHECK_DEPTH || 9), runs = Number(process.env.BENCH_RUNS || 3)) {
  const bin = cli();
  const dir = mkdtempSync(join(tmpdir(), 'check-bench-'));
  const file = join(dir, 'raft3.json');
  writeFileSync(file, RAFT3);
  const run = spawnSync(bin, ['run', file, '--link', '--step', '0'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (run.status !== 0) throw new Error(`run --link: ${run.stderr}`);
  // The link's query (the run), on the page this benchmark serves.
  const url = server.url + '?' + JSON.parse(run.stdout).link.split('?')[1];
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const [pageRuns, nativeRuns] = [[], []];
  for (let i = 0; i < runs; i++) {
    pageRuns.push(await inPage(page, url, depth));
    nativeRuns.push(native(bin, file, depth));
  }
  await page.context().close();
  const states = pageRuns[0][0];
  if (nativeRuns[0][0] !== states) throw new Error(`the page explored ${states} states, the CLI ${nativeRuns[0][0]}: not the same exploration`);
  const pageS = median(pageRuns.map((r) => r[1]));
  const [cpu, wall] = [median(nativeRuns.map((r) => r[1])), median(nativeRuns.map((r) => r[2]))];
  console.log(`check in the page: raft3.json --property two-leaders-in-term --depth ${depth}: ${states} unique states; `
    + `page's worker (click to verdict, median of ${runs}) ${pageS.toFixed(2)} s, ${(states / pageS).toFixed(0)} states/s; `
    + `native release CLI ${wall.toFixed(2)} s wall, ${cpu.toFixed(2)} CPU-s, ${(states / wall).toFixed(0)} states/s (wall); `
    + `ratio page / native (wall) ${(pageS / wall).toFixed(2)}x`);
}

await whenMain(import.meta.url, benchCheck);
