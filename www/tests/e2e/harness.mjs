// Shared set-up for the end-to-end tests: a static server for dist/ on loopback, the system
// Chromium driven by playwright-core, and a page wrapper that records console errors.
import { createServer } from 'node:http';
import { execFileSync } from 'node:child_process';
import { readFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const DIST = process.env.DIST_DIR || join(here, '..', '..', '..', 'dist');
export const SHOTS = join(here, 'screenshots');
/** The repository's root. */
export const ROOT = join(here, '..', '..', '..');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.json': 'application/json',
  '.png': 'image/png',
};

/** Serves dist/ on 127.0.0.1 at a free port. */
export async function serve() {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    if (path.endsWith('/')) path += 'index.html';
    try {
      const body = await readFile(join(DIST, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}

/** Runs the `election-lab` command line (`cargo run`) in the repository; returns its output.
 *  `diff` exiting with 1 (the runs differ) is an answer, not a failure. */
export function cli(...args) {
  try {
    return execFileSync('cargo', ['run', '--quiet', '--offline', '-p', 'election-lab', '--', ...args], { cwd: ROOT, encoding: 'utf8' });
  } catch (e) {
    if (e.status !== 1 || args[0] !== 'diff') throw new Error(`election-lab ${args.join(' ')}: ${e.stderr}`);
    return e.stdout;
  }
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Opens a page that records console errors and uncaught exceptions in `errors`; `options` are
 *  more of the browser context's (a touch screen: `{ hasTouch: true, isMobile: true }`). */
export async function open(browser, url, viewport = { width: 1280, height: 860 }, options = {}) {
  const context = await browser.newContext({ viewport, ...options });
  await context.addInitScript(watchMissingTexts);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  // The panels beside the canvas are drawn one frame after the first paint: wait for them.
  await page.waitForFunction(() => !document.querySelector('aside.panels') || document.querySelector('aside.panels .log'));
  // A link the player hands to the workbench (compare lanes): wait until the workbench has
  // replaced it (its bindings, which alone export `sweep_csv`, are the page's) and has drawn.
  if (/[?&](compare|until)=/.test(url)) {
    await page.waitForFunction(() => typeof window.wasmBindings?.sweep_csv === 'function');
    await page.waitForSelector('[data-node]:not(#first-frame *)');
  }
  // A Chinese page shows English until its catalog (zh.json) has arrived: wait for the switch.
  if (/[?&]lang=zh/.test(url)) await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  return { page, errors, context };
}

/** What a text of the workbench reads as in the player, which is built without them
 *  (`NOT_IN_PLAYER` of crate/core/build.rs). */
export const NOT_IN_PLAYER = '\u27e6?\u27e7';

/** Run in every page before its scripts: a text, a label or a tooltip that reads as
 *  `NOT_IN_PLAYER` is a console error, which the tests fail on (the player shows a key listed in
 *  crate/i18n/workbench.txt). Independent of that file's list of sources. */
function watchMissingTexts() {
  const marker = '\u27e6?\u27e7';
  const shown = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    const attrs = el ? ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a) || '') : [];
    return [node.textContent || '', ...attrs].some((t) => t.includes(marker));
  };
  const report = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    console.error(`a workbench text shown by the player (crate/i18n/workbench.txt): ${(el?.outerHTML || '').slice(0, 300)}`);
  };
  const observer = new MutationObserver((records) => {
    for (const r of records) {
      const nodes = r.type === 'childList' ? [...r.addedNodes] : [r.target];
      const hit = nodes.find(shown);
      if (hit) return report(hit);
    }
  });
  observer.observe(document, {
    subtree: true, childList: true, characterData: true,
    attributes: true, attributeFilter: ['aria-label', 'title', 'placeholder'],
  });
}

export async function shot(page, name) {
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/**
 * Maps the canvas's viewBox coordinates (0..1000) to page coordinates, after scrolling the
 * canvas into view (a click on a control below it may have scrolled it away); `canvas`: the
 * first one unless named.
 */
export async function toPage(page, x, y, canvas = page.locator('svg.canvas').first()) {
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  const s = Math.min(box.width, box.height) / 1000;
  return [box.x + (box.width - 1000 * s) / 2 + x * s, box.y + (box.height - 1000 * s) / 2 + y * s];
}

/** Drags with the mouse on the canvas (the first one unless named) from one viewBox point
 * (0..1000) to another, in steps, as a hand would. */
export async function drag(page, from, to, canvas) {
  const [x1, y1] = await toPage(page, ...from, canvas);
  const [x2, y2] = await toPage(page, ...to, canvas);
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move((x1 + x2) / 2, (y1 + y2) / 2, { steps: 4 });
  await page.mouse.move(x2, y2, { steps: 4 });
  await page.mouse.up();
}

/** The single offline file (`scripts/offline.mjs`) built from dist/ and written to a fresh
 * temporary folder: its file:// URL. */
export async function offlineFileUrl() {
  const { buildOffline } = await import('../../../scripts/offline.mjs');
  const { html } = await buildOffline(DIST);
  const file = join(await mkdtemp(join(tmpdir(), 'election-lab-offline-')), 'election-lab.html');
  await writeFile(file, html);
  return pathToFileURL(file).href;
}

/** The Web Workers `page` starts from now on, in order, as they start. */
export function watchWorkers(page) {
  const workers = [];
  page.on('worker', (w) => workers.push(w));
  return workers;
}

/** The step the page shows. */
export const step = async (page) => Number(await page.getByTestId('step').textContent());

/** How many nodes are drawn leading and not crashed. */
export const liveLeaders = (page) => page.locator('[data-node][data-role="leader"]:not([data-status="crashed"])').count();

/** Presses Step forward until `done()` holds, at most `max` times; whether it came to hold. */
export async function stepUntil(page, done, max = 400) {
  for (let i = 0; i < max; i++) {
    if (await done()) return true;
    await page.getByRole('button', { name: 'Step forward' }).click();
  }
  return done();
}

/** Runs `bench(browser, server)` when the module at `url` is the script node was started with
 * (a browser bench run alone), on a server and browser of its own. */
export async function whenMain(url, bench) {
  if (process.argv[1] !== fileURLToPath(url)) return;
  const server = await serve();
  const browser = await launch();
  await bench(browser, server);
  await browser.close();
  await server.close();
}

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** Runs axe-core in the page; returns its serious and critical violations, one line each. */
export async function axe(page) {
  await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join(' ')}`) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes): ${v.nodes.slice(0, 3).join(' | ')}`);
}
