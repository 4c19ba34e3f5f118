// Browser benchmarks (not tests): run with `make bench`. Prints medians and percentiles.
//  1. engine: Bully worst case N=1000 in wasm (compare with `cargo bench`'s native figure);
//  2. animation: frame intervals while playing N=64 with >= 500 messages in flight;
//  3. seeking on a long trace: time from a scrubber move to the next painted frame;
//  4. size of wasm + JS (gzip) and first interactive paint on localhost;
//  5. an experiment in wasm: the 150–300 ms line of Raft's Figure 16, 1000 trials, in one call
//     (compare with `cargo bench`'s native figure; the page itself runs sweeps in chunks).
//  6. compare mode: frame intervals while 4 lanes x 16 nodes play on one clock.
//  7. the experiments view, through the UI: Run clicked to plot shown, and the frame intervals
//     meanwhile, for the 150–300 ms line at 1000 trials (spec edited in the view) and for the
//     whole Figure 16 (top) experiment at its 1000 trials per line.
//  8. "Find a counterexample" in the page: schedules/s in the Web Worker and the page's frame
//     intervals during the search (tests/bench/search.mjs).
//  9. "Check every schedule" in the page's Web Worker against the same exploration by the
//     native release CLI, and their ratio (tests/bench/check.mjs).
import { gzipSync } from 'node:zlib';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, DIST } from '../e2e/harness.mjs';
import { benchExperimentsView } from './experiments-view.mjs';
import { benchSearch } from './search.mjs';
import { benchCheck } from './check.mjs';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

const server = await serve();
const browser = await launch();
const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();

// 4. first paint.
const paints = [];
for (let i = 0; i < 5; i++) {
  const t0 = Date.now();
  await page.goto(server.url + '?preset=bully-heartbeats');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  paints.push(Date.now() - t0);
}
let bytes = 0, gz = 0;
for (const f of readdirSync(DIST)) {
  if (f.endsWith('.wasm') || f.endsWith('.js')) {
    const b = readFileSync(join(DIST, f)); bytes += b.length; gz += gzipSync(b, { level: 9 }).length;
  }
}
console.log(`size: wasm+js ${(bytes / 1024).toFixed(0)} KB raw, ${(gz / 1024).toFixed(0)} KB gzip`);
console.log(`first interactive paint (load to nodes drawn): median ${median(paints)} ms of ${paints.length}`);

// 1. engine in wasm.
const runs = [];
let messages = 0;
for (let i = 0; i < 7; i++) {
  const [ms, m] = await page.evaluate(() => window.wasmBindings.bench_bully_worst(1000));
  runs.push(ms); messages = m;
}
console.log(`engine: Bully worst case N=1000 in wasm: median ${median(runs).toFixed(1)} ms for ${messages} messages (7 runs)`);

// 2. animation with N=64 and many messages in flight.
const ids = Array.from({ length: 64 }, (_, i) => i + 1);
// Ten low ids start at once: 585 ELECTIONs in flight, more as the cascade goes on.
const schedule = [{ at: 0, crash: 64 }, ...ids.slice(0, 10).map((i) => ({ at: 0, start: i }))];
const scenario = { algorithm: 'bully', nodes: ids, initial_leader: 64, network: { latency: [40, 60] }, schedule };
const trace = Buffer.from(JSON.stringify({ scenario, interventions: [] })).toString('base64url');
await page.goto(server.url + `?trace=${trace}&step=11`);
await page.waitForSelector('[data-node]:not(#first-frame *)');
const inFlight = await page.locator('[data-msg]').count();
await page.getByRole('button', { name: 'Play' }).click();
const intervals = await page.evaluate(() => new Promise((done) => {
  const out = []; let last = performance.now();
  const tick = (t) => { out.push(t - last); last = t; if (out.length < 240) requestAnimationFrame(tick); else done(out); };
  requestAnimationFrame(tick);
}));
await page.getByRole('button', { name: 'Pause' }).click();
console.log(`animation: N=64, ${inFlight} messages in flight: frame interval median ${median(intervals).toFixed(1)} ms, p95 ${pct(intervals, 0.95).toFixed(1)} ms (${intervals.length} frames)`);

// 3. seek on a long trace: heartbeats for a long time give >100k steps.
const long = { algorithm: 'raft', nodes: [1, 2, 3, 4, 5, 6, 7, 8, 9], heartbeats: { interval: 2, timeout: 10 }, stop: { max_time: 30000 } };
const lt = Buffer.from(JSON.stringify({ scenario: long, interventions: [] })).toString('base64url');
await page.goto(server.url + `?trace=${lt}&step=100000`);
await page.waitForSelector('[data-node]:not(#first-frame *)');
const head = Number(await page.locator('input[aria-label="Timeline"]').getAttribute('max'));
const seeks = [];
for (let i = 0; i < 30; i++) {
  const target = Math.floor(((i * 7919) % 97) / 97 * head);
  const ms = await page.evaluate((s) => new Promise((done) => {
    const input = document.querySelector('input[aria-label="Timeline"]');
    const t0 = performance.now();
    input.value = String(s);
    input.dispatchEvent(new InputEvent('input', { bubbles: true }));
    requestAnimationFrame(() => done(performance.now() - t0));
  }), target);
  seeks.push(ms);
}
console.log(`seek: trace of ${head} steps: scrubber move to next frame median ${median(seeks).toFixed(1)} ms, p95 ${pct(seeks, 0.95).toFixed(1)} ms (30 seeks)`);

// 5. a 1000-trial Raft sweep in wasm.
const sweepMs = await page.evaluate(() => {
  const w = window.wasmBindings;
  const spec = JSON.parse(w.experiment_catalog()).find((e) => e.id === 'raft-figure-16-randomness').spec;
  spec.variants = spec.variants.filter((v) => v.label === '150–300 ms');
  spec.seeds = { count: 1000 };
  spec.reference = [];
  const text = JSON.stringify(spec);
  const out = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    const csv = w.sweep_csv(text, true);
    out.push(performance.now() - t0);
    if (!csv.includes('150–300 ms')) throw new Error(csv);
  }
  return out;
});
console.log(`sweep: Raft Figure 16, 150-300 ms, 1000 trials in wasm: median ${median(sweepMs).toFixed(0)} ms (15 runs)  [target < 5000 ms]`);

// 6. compare mode: four lanes of 16 nodes with heartbeats; the leader crashes at t=4 and the
// failure detectors fire from t=14, so every lane elects while the clock runs: from t=12 at the
// default speed (300 frames reach t=22), from t=0 at 10 ticks/s (a render on most frames).
const n16 = Array.from({ length: 16 }, (_, i) => i + 1);
const busy = { algorithm: 'bully', nodes: n16, seed: 7, initial_leader: 16, network: { latency: [2, 6] },
  heartbeats: { interval: 2, timeout: 10 }, schedule: [{ at: 4, crash: 16 }], stop: { max_time: 3000 } };
const bt = Buffer.from(JSON.stringify(busy)).toString('base64url');
// A fresh page, so that the long traces above leave nothing behind.
const cpage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
for (const speed of ['2', '10']) {
  await cpage.goto(server.url + `?compare=bully,raft,invitation,bully-failover&trace=${bt}&time=${speed === '2' ? 12 : 0}`);
  await cpage.waitForSelector('section.lane [data-node]');
  const lanes = await cpage.locator('section.lane').count();
  const nodes = await cpage.locator('section.lane [data-node]').count();
  await cpage.selectOption('select[aria-label="Speed"]', speed);
  await cpage.getByRole('button', { name: 'Play' }).click();
  const [frames, dots] = await cpage.evaluate(() => new Promise((done) => {
    const out = []; let last = performance.now(); let most = 0;
    const tick = (t) => {
      out.push(t - last); last = t;
      most = Math.max(most, document.querySelectorAll('section.lane [data-msg]').length);
      if (out.length < 300) requestAnimationFrame(tick); else done([out, most]);
    };
    requestAnimationFrame(tick);
  }));
  await cpage.getByRole('button', { name: 'Pause' }).click();
  const t = await cpage.getByTestId('time').textContent();
  console.log(`compare: ${lanes} lanes, ${nodes} nodes, up to ${dots} dots, playing at ${speed} ticks/s (to t=${t}): frame interval median ${median(frames).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms (${frames.length} frames)`);
}

// 7. the experiments view (tests/bench/experiments-view.mjs, also runnable alone).
await benchExperimentsView(browser, server);

// 8. the counterexample search in its worker (tests/bench/search.mjs, also runnable alone).
await benchSearch(browser, server);

// 9. the exhaustive checker in its worker against the native CLI (tests/bench/check.mjs).
await benchCheck(browser, server);

await browser.close();
await server.close();
