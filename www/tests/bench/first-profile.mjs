// Where the first render's time goes, by function (a benchmark aid, not a test). Needs a dist/
// whose player wasm keeps its function names (`wasm-bindgen --keep-debug` of the wasm before
// `wasm-opt`, copied over the player's `_bg.wasm` and glue, `integrity=` removed from
// index.html): `DIST_DIR=… node tests/bench/first-profile.mjs`. CPU throttled 4× as in
// first-load.mjs, no network throttling; prints the functions with the most inclusive time
// between the page's `lab:start` and `lab:rendered` marks, summed over RUNS (default 3) loads.
import { serve, launch } from '../e2e/harness.mjs';

const RUNS = Number(process.env.RUNS || 3);
const server = await serve();
const browser = await launch();
const incl = new Map();
const self = new Map();
for (let i = 0; i < RUNS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.goto(server.url + '?preset=bully-heartbeats&lang=en');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  await page.waitForFunction(() => performance.getEntriesByName('lab:rendered').length > 0);
  const { profile } = await cdp.send('Profiler.stop');
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children || []) parent.set(c, n.id);
  const dt = new Map();
  profile.samples.forEach((id, k) => dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[k + 1] || 0)));
  for (const [id, us] of dt) {
    const seen = new Set();
    let n = byId.get(id);
    const name0 = n.callFrame.functionName || '(anonymous)';
    self.set(name0, (self.get(name0) || 0) + us);
    while (n) {
      const name = n.callFrame.functionName || '(anonymous)';
      if (!seen.has(name)) { seen.add(name); incl.set(name, (incl.get(name) || 0) + us); }
      n = byId.get(parent.get(n.id));
    }
  }
  await context.close();
}
const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k)
  .map(([n, us]) => `${(us / 1000 / RUNS).toFixed(1).padStart(8)} ms  ${n.slice(0, 160)}`).join('\n');
console.log(`inclusive (ms per load, over ${RUNS} loads):\n${top(incl, 70)}\n\nself:\n${top(self, 40)}`);
await browser.close();
await server.close();
