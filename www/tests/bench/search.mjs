// Benchmark of "Find a counterexample" in the page (section 8 of browser.mjs; `node
// tests/bench/search.mjs` runs it alone): the engine's search in the Web Worker, through the UI.
// Measures schedules per second in the worker (its own clock, and the page's from click to
// result), and the frame intervals of the page meanwhile (requestAnimationFrame), to compare with
// the native figures of `cargo bench -p election-lab --bench search`.
import { whenMain } from '../e2e/harness.mjs';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

/** Clicks the find button of `property` and resolves when the search ends: [wall ms, frame intervals, status, its data]. */
const searchInPage = (page, property) => page.evaluate((property) => new Promise((done) => {
  const out = []; const t0 = performance.now(); let last = t0;
  document.querySelector(`[data-testid="find-${property}"]`).click();
  const tick = (t) => {
    out.push(t - last); last = t;
    const s = document.querySelector('[data-testid="search"]');
    const status = s?.dataset.status;
    if (status && status !== 'running') {
      const p = s.querySelector('p');
      done([performance.now() - t0, out, status, { ...p.dataset }]);
    } else requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}), property);

export async function benchSearch(browser, server) {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  // The same page with no search, for comparison (the machine's load shows in both).
  await page.goto(server.url + '?preset=split-brain-raft');
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  const idle = await page.evaluate(() => new Promise((done) => {
    const out = []; let last = performance.now();
    const tick = (t) => { out.push(t - last); last = t; if (out.length < 300) requestAnimationFrame(tick); else done(out.slice(1)); };
    requestAnimationFrame(tick);
  }));
  console.log(`search in the page: no search (the same page idle): frame interval median ${median(idle).toFixed(1)} ms, p95 ${pct(idle, 0.95).toFixed(1)} ms, max ${Math.max(...idle).toFixed(0)} ms (${idle.length} frames)`);
  for (const [preset, property, times] of [['split-brain-raft', 'two-leaders-in-term', 3], ['paxos-duel', 'chosen-once', 3], ['split-brain-bully', 'split-brain', 5]]) {
    const walls = []; const workers = []; const frames = []; const rates = []; let data = {}; let status = '';
    for (let i = 0; i < times; i++) {
      await page.goto(server.url + `?preset=${preset}`);
      await page.waitForSelector('[data-node]:not(#first-frame *)');
      const [ms, f, st, d] = await searchInPage(page, property);
      walls.push(ms); frames.push(...f.slice(1)); status = st; data = d;
      workers.push(Number(d.ms));
      rates.push(Number(d.schedules) / (Number(d.ms) / 1000));
    }
    const steps = data.steps ? `, ${data.steps} steps` : '';
    console.log(`search in the page: ${preset} --property ${property}: ${status}, ${data.schedules} schedules${steps}; `
      + `worker time median ${median(workers).toFixed(0)} ms (${Math.min(...workers).toFixed(0)}–${Math.max(...workers).toFixed(0)}), `
      + `click to result median ${median(walls).toFixed(0)} ms; ${status === 'none' ? `${median(rates).toFixed(0)} schedules/s in the worker; ` : ''}`
      + `page frame interval median ${median(frames).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(0)} ms (${frames.length} frames)`);
  }
  await page.context().close();
}

await whenMain(import.meta.url, benchSearch);
