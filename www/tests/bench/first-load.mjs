// The first load and the workbench's tools under a weak connection (a benchmark, not a test: run
// by `make bench`, or alone after `make build`: `cd www && node tests/bench/first-load.mjs`).
// dist/ is served as a static host that compresses would serve it (each file's .gz written by
// the build, sent with `Content-Encoding: gzip`), to a fresh browser context (no cache) whose network and
// CPU are throttled through the DevTools protocol. Prints the median of RUNS (default 5) of
// (TOOLS=experiments,editor names the tools to time, TOOLS=none none; all four by default):
//  - the time from navigation to the first `[data-node]` of `?preset=bully-heartbeats` (the first
//    frame's, src/first_frames.rs), and, in the page's own clock, to the player's own;
//  - the time from clicking a workbench tool (experiments, search, import, editor) in a fresh
//    player to its view working (the workbench fetched and compiled, the tool drawn).
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, DIST } from '../e2e/harness.mjs';

const RUNS = Number(process.env.RUNS || 5);
const here = dirname(fileURLToPath(import.meta.url));
const REAL = join(here, '..', '..', '..', 'crate', 'tests', 'data', 'real', 'etcd-zap');
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json' };

const server = createServer(async (req, res) => {
  let path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  if (path.endsWith('/')) path += 'index.html';
  const type = TYPES[extname(path)] || 'application/octet-stream';
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] || '');
  try {
    const body = await readFile(join(DIST, path + (gzip ? '.gz' : ''))).catch(() => null);
    if (body) {
      res.writeHead(200, { 'content-type': type, 'content-encoding': 'gzip', 'cache-control': 'no-store' });
      return res.end(body);
    }
    res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
    res.end(await readFile(join(DIST, path)));
  } catch {
    res.writeHead(404);
    res.end('not found');
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await launch();

const CONDITIONS = [
  { name: '10 Mbit/s, 40 ms, CPU 4x', down: 10e6 / 8, up: 5e6 / 8, latency: 40 },
  { name: '1.6 Mbit/s, 150 ms, CPU 4x ("Fast 3G")', down: 1.6e6 / 8, up: 0.75e6 / 8, latency: 150 },
];

/** A fresh throttled page (new context: empty cache). */
async function fresh(c) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: c.latency, downloadThroughput: c.down, uploadThroughput: c.up });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return { context, page };
}

/** Times in the page, in ms from its navigation start: when wasm compilation was asked for and
 *  resolved (whichever of `WebAssembly`'s entry points the loader used) and when the first
 *  `[data-node]` was inserted. Installed before the page's own scripts run. */
function probe() {
  const t = (window.__firstLoad = {});
  for (const name of ['instantiateStreaming', 'instantiate', 'compileStreaming', 'compile']) {
    const f = WebAssembly[name];
    if (!f) continue;
    WebAssembly[name] = function (...args) {
      t[name] ??= performance.now();
      const p = f.apply(this, args);
      p.then(() => { t[name + 'Done'] ??= performance.now(); }, () => {});
      return p;
    };
  }
  new MutationObserver((_, o) => {
    if (!t.node && document.querySelector('[data-node]')) t.node = performance.now();
    if (document.querySelector('[data-node]:not(#first-frame *)')) {
      t.app = performance.now();
      o.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
}

/** Where the time to the first node went (ms from navigation start), read from the page: the
 *  resources' timings, the wasm's compilation, the app's marks (`probe::mark`), the node. */
async function breakdown(page) {
  return page.evaluate(() => {
    const t = window.__firstLoad;
    const nav = performance.getEntriesByType('navigation')[0];
    const res = performance.getEntriesByType('resource');
    const find = (re) => res.find((r) => re.test(r.name));
    const wasm = find(/election-lab-(www|bully)[^/]*\.wasm/);
    const js = find(/election-lab-(www|bully)[^/]*\.js/);
    const mark = (n) => performance.getEntriesByName(n)[0]?.startTime;
    const asked = t.instantiateStreaming ?? t.instantiate ?? t.compileStreaming ?? t.compile;
    const done = t.instantiateStreamingDone ?? t.instantiateDone ?? t.compileStreamingDone ?? t.compileDone;
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
    return {
      html: nav.responseEnd,
      js: js?.responseEnd,
      wasmStart: wasm?.startTime,
      wasmEnd: wasm?.responseEnd,
      compileAsked: asked,
      compiled: done,
      streaming: t.instantiateStreaming !== undefined || t.compileStreaming !== undefined,
      start: mark('lab:start'),
      state: mark('lab:state'),
      rendered: mark('lab:rendered'),
      node: t.node,
      app: t.app,
      fcp,
    };
  });
}

/** Milliseconds from navigation to the first node drawn, and where they went. */
async function firstNode(c) {
  const { context, page } = await fresh(c);
  await page.addInitScript(probe);
  const t0 = Date.now();
  await page.goto(url + '?preset=bully-heartbeats&lang=en');
  await page.waitForSelector('[data-node]', { timeout: 120000 });
  const ms = Date.now() - t0;
  // The player's own frame (after the first frame, src/first_frames.rs).
  await page.waitForSelector('[data-node]:not(#first-frame *)', { timeout: 120000 });
  const parts = await breakdown(page);
  await context.close();
  return { ms, parts };
}

/** The median of each phase over the runs, one line. */
function phases(runs) {
  const m = (f) => median(runs.map((r) => f(r.parts)).filter((x) => Number.isFinite(x))).toFixed(0);
  return [
    `HTML ${m((p) => p.html)}`,
    `glue JS ${m((p) => p.js)}`,
    `wasm requested ${m((p) => p.wasmStart)}`,
    `wasm downloaded ${m((p) => p.wasmEnd)}`,
    `compile asked ${m((p) => p.compileAsked)} (${runs[0].parts.streaming ? 'streaming' : 'NOT streaming'})`,
    `compiled+instantiated ${m((p) => p.compiled)}`,
    `start() ${m((p) => p.start)}`,
    `state built ${m((p) => p.state)}`,
    `first render committed ${m((p) => p.rendered)}`,
    `first [data-node] in the DOM ${m((p) => p.node)}`,
    `the player's own [data-node] ${m((p) => p.app)}`,
    `first contentful paint ${m((p) => p.fcp)}`,
    `| download after the wasm's request ${m((p) => p.wasmEnd - p.wasmStart)}`,
    `compile after the download ${m((p) => p.compiled - p.wasmEnd)}`,
    `instantiated → start ${m((p) => p.start - p.compiled)}`,
    `state ${m((p) => p.state - p.start)}`,
    `render ${m((p) => p.rendered - p.state)}`,
    `render → paint ${m((p) => p.fcp - p.rendered)}`,
  ].join(', ');
}

const TOOLS = {
  experiments: async (page) => {
    await page.getByTestId('open-experiments').click();
    await page.getByTestId('experiments').waitFor({ timeout: 180000 });
  },
  search: async (page) => {
    await page.getByRole('button', { name: /^Find a counterexample/ }).first().click();
    await page.locator('[data-testid="search"][data-status]').waitFor({ timeout: 180000 });
  },
  import: async (page) => {
    await page.getByTestId('import').setInputFiles(['c.log', 'a.log', 'b.log'].map((f) => join(REAL, f)));
    await page.getByText(/Imported 3 .*log file/).waitFor({ timeout: 180000 });
  },
  editor: async (page) => {
    await page.locator('.scenario-bar select').first().selectOption('__script__');
    await page.getByTestId('script-editor').waitFor({ timeout: 180000 });
  },
};

/** Milliseconds from using `tool` in a fresh player to its view working. */
async function clickToWorking(c, tool) {
  const { context, page } = await fresh(c);
  await page.goto(url + (tool === 'search' ? '?preset=split-brain-bully&lang=en' : '?preset=bully-heartbeats&lang=en'));
  await page.waitForSelector('[data-node]:not(#first-frame *)', { timeout: 120000 });
  await page.waitForLoadState('networkidle');
  const t0 = Date.now();
  await TOOLS[tool](page);
  const ms = Date.now() - t0;
  await context.close();
  return ms;
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
for (const c of CONDITIONS) {
  const loads = [];
  for (let i = 0; i < RUNS; i++) loads.push(await firstNode(c));
  const ms = loads.map((l) => l.ms);
  console.log(`${c.name}: first [data-node] median ${median(ms)} ms (runs: ${ms.join(', ')})`);
  const own = loads.map((l) => Math.round(l.parts.app));
  console.log(`${c.name}: the player's own first [data-node], from navigation start, median ${median(own)} ms (runs: ${own.join(', ')})`);
  console.log(`  in the page, ms from navigation start (medians): ${phases(loads)}`);
  for (const tool of (process.env.TOOLS || Object.keys(TOOLS).join(',')).split(',').filter((t) => TOOLS[t])) {
    const times = [];
    for (let i = 0; i < RUNS; i++) times.push(await clickToWorking(c, tool));
    console.log(`${c.name}: click → ${tool} working, median ${median(times)} ms (runs: ${times.join(', ')})`);
  }
}
await browser.close();
await new Promise((ok) => server.close(ok));
