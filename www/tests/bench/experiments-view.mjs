// Benchmark of the experiments view (section 7 of browser.mjs; `node tests/bench/experiments-view.mjs`
// runs it alone): a sweep run through the page (in its Web Worker since issue 17). Measures the
// time from clicking Run to the plot drawn, and the frame intervals meanwhile (requestAnimationFrame).
import { whenMain } from '../e2e/harness.mjs';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(s.length * p))]; };

export async function benchExperimentsView(browser, server) {
  const epage = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await epage.goto(server.url + '?experiment=raft-figure-16-randomness');
  await epage.getByTestId('experiments').waitFor();
  const figure16 = await epage.getByTestId('experiment-spec').inputValue();
  /** Clicks Run and returns [ms until the plot is drawn, frame intervals meanwhile, runs]. */
  const runInView = () => epage.evaluate(() => new Promise((done) => {
    const out = []; const t0 = performance.now(); let last = t0;
    document.querySelector('[data-testid="experiment-run"]').click();
    const tick = (t) => {
      out.push(t - last); last = t;
      if (document.querySelector('[data-testid="experiment-plot"] svg')) {
        done([performance.now() - t0, out, Number(document.querySelector('[data-testid="experiment-progress"]').getAttribute('aria-valuenow'))]);
      } else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
  const oneLine = JSON.parse(figure16);
  oneLine.variants = oneLine.variants.filter((v) => v.label === '150–300 ms');
  oneLine.reference = [];
  for (const [name, spec, times] of [['150-300 ms line', JSON.stringify(oneLine), 7], ['whole Figure 16 (top)', figure16, 3]]) {
    await epage.locator('details.exp-spec summary').click();
    await epage.getByTestId('experiment-spec').fill(spec);
    await epage.locator('details.exp-spec summary').click();
    await epage.getByTestId('experiment-trials').fill('1000');
    const walls = []; const frames = []; const lasts = []; let runs = 0;
    for (let i = 0; i < times; i++) {
      const [ms, f, n] = await runInView();
      walls.push(ms); frames.push(...f); lasts.push(f[f.length - 1]); runs = n;
    }
    console.log(`experiments view: Raft Figure 16, ${name}, 1000 trials per line (${runs} runs): Run to plot median ${median(walls).toFixed(0)} ms (${Math.min(...walls).toFixed(0)}–${Math.max(...walls).toFixed(0)}, ${times} runs); frame interval median ${median(frames).toFixed(1)} ms, p95 ${pct(frames, 0.95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(0)} ms, last frames (plot drawn) ${lasts.map((x) => x.toFixed(0)).join(", ")} ms (${frames.length} frames)  [target < 5000 ms, p95 <= 50 ms]`);
  }
}

await whenMain(import.meta.url, benchExperimentsView);
