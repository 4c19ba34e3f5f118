// Every view in `?lang=zh` shows no English words: the main view, the inspector of a node, the
// help dialog, the "how it works" card, the export dialog and a picture exported from it, compare
// mode with its picker, the experiments view (after a run) and an embed. What may stay Latin:
// ids (N5, #12), message kinds and other identifiers in capitals (ELECTION, ZXID), numbers and
// units, key names, file formats, and proper names (authors, systems, the product's name).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// Proper names, key names, units and formats that are written in Latin letters in Chinese too.
const ALLOWED = new Set([
  // the product and the algorithms' and systems' names, authors
  'Bully', 'Raft', 'Paxos', 'ZooKeeper', 'Chang', 'Roberts', 'LeLann', 'Hirschberg', 'Sinclair',
  'Chord', 'Chubby', 'Gossip', 'Garcia', 'Molina', 'Ongaro', 'Ousterhout', 'Lamport', 'Tanenbaum', 'Steen', 'van',
  'Aguilera', 'Delporte', 'Gallet', 'Fauconnier', 'Toueg', 'Hunt', 'Konar', 'Junqueira', 'Reed', 'Serafini',
  'Demers', 'Renesse', 'Minsky', 'Hayden', 'Stoica', 'Morris', 'Karger', 'Kaashoek', 'Balakrishnan', 'Gray',
  'Cheriton', 'Burrows', 'Gholipour', 'Kordafshari', 'Jahanshahi', 'Rahmani', 'Murshed', 'Allen', 'Pittel',
  'Figure', 'English', 'fencing', 'Zab', 'etcd', 'FloodMax', 'TimeSlice', 'Lynch', 'Tel', 'diam',
  // key names
  'Space', 'Home', 'End', 'Ctrl', 'Shift', 'Tab', 'Enter', 'Esc', 'PageUp', 'PageDown', 'Delete',
  // units, formats, variables
  'ms', 's', 'tick', 'ticks', 'hb', 'ack', 'rej', 'px', 'SVG', 'PNG', 'TikZ', 'CSV', 'JSON', 'id', 'ids', 'log', 'max', 'min', 'lo', 'hi', 'fanout',
  'ZXID', 'SID', 'TTL', 'CAS', 'δ', 'N', 't', 'e', 'x', 'y', 'H', 'HN', 'CDF', 'p90', 'sd',
  // the papers' variables and the terms they define, glossed beside the Chinese word
  'i', 'k', 'r', 'f', 'a', 'b', 'ln', 'mod', 'epoch', 'term', 'ballot', 'generation', 'init',
  // the command line
  'sweep',
]);

/** The Latin words of `text` that are not ids, identifiers in capitals, or allowed names. */
function english(text) {
  // A quoted word is a literal (a key, a file name), not prose.
  text = text.replace(/"[^"\n]*"/g, ' ').replace(/Election Lab|election-lab/g, ' ');
  // A breakpoint in the command line's syntax (`role:3=leader`, `time>=40`) is code, not prose.
  text = text.replace(/\b[a-z]+:[^\s]*[=<>][^\s]*/g, ' ');
  // So is an option of the command line (`--until`).
  text = text.replace(/(^|[^\w-])--[a-z][a-z-]*/g, ' ');
  const words = text.match(/[A-Za-z][A-Za-z_'’-]*/g) || [];
  return words.filter((w) => {
    if (w.includes('_')) return false; // an identifier: T_out, REQUEST_VOTE
    const parts = w.split(/[-'’]/).filter(Boolean);
    return parts.some((p) => !(ALLOWED.has(p) || /^[A-Z0-9_]+$/.test(p) || /^N\d*$/.test(p) || /^t\d+$/.test(p)));
  });
}

/** Visible text and the accessible names and tooltips of `selector` (the page by default). */
async function texts(page, selector = 'body') {
  return page.locator(selector).first().evaluate((root) => {
    // Texts marked lang="en" are English on purpose: a paper's reference, the language switch.
    const english = (el) => el.closest('[lang="en"]') && !el.closest('[lang="en"]').matches('html');
    const out = [root.innerText];
    for (const el of root.querySelectorAll('[lang="en"]')) {
      if (el.innerText) out[0] = out[0].replace(el.innerText, ' ');
    }
    for (const el of root.querySelectorAll('[aria-label], [title], [placeholder]')) {
      if (el.closest('[hidden]') || english(el)) continue;
      for (const a of ['aria-label', 'title', 'placeholder']) {
        // A formula's tooltip is the reference of the paper it comes from.
        if (a === 'title' && el.matches('.formula')) continue;
        if (el.getAttribute(a)) out.push(el.getAttribute(a));
      }
    }
    // Hover titles of SVG elements (timeline markers, nodes, the space-time diagram).
    for (const t of root.querySelectorAll('title')) if (!english(t)) out.push(t.textContent);
    return out.join('\n');
  });
}

async function check(page, view, selector) {
  const t = await texts(page, selector);
  const found = english(t);
  assert.deepEqual([...new Set(found)], [], `${view}: English words on a Chinese page`);
  assert.match(t, /[\u4e00-\u9fff]/, `${view}: some Chinese`);
}

test('the words that count as English are found (the check can fail)', () => {
  assert.deepEqual(english('N5 发送 ELECTION(32) 给 N80，t = 5 ms'), []);
  assert.deepEqual(english('N5 leads the cluster'), ['leads', 'the', 'cluster']);
  assert.deepEqual(english('Garcia-Molina 1982；Step back'), ['Step', 'back']);
  assert.deepEqual(english('例如 role:3=leader，与命令行 --until 相同'), []);
});

test('every view in ?lang=zh: no English words', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-bully&step=30&sel=5&lang=zh');
  await check(page, 'main view with the inspector of N5');
  await page.getByTestId('how-it-works').click();
  await check(page, 'how it works', '[data-testid="card"]');
  await page.keyboard.press('Escape');
  await page.keyboard.press('?');
  await check(page, 'help', '.overlay');
  await page.keyboard.press('Escape');
  // A node's menu (right-click).
  await page.locator('[data-node="3"]').click({ button: 'right' });
  await check(page, 'node menu', '.node-menu');
  await page.keyboard.press('Escape');
  // The export dialog.
  await page.locator('details.picture summary').first().click();
  await check(page, 'export dialog', 'details.picture');
  await shot(page, 'i18n-walk-main-zh');
  assert.deepEqual(errors, []);
});

test('a picture exported from a Chinese page has a Chinese caption', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=split-brain-bully&step=30&lang=zh');
  await page.locator('details.picture summary').first().click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /SVG/ }).first().click()]);
  const svg = (await readFile(await dl.path())).toString('utf8');
  const text = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).join('\n');
  assert.match(text, /[\u4e00-\u9fff]/, 'a Chinese caption');
  assert.deepEqual([...new Set(english(text))], [], 'the picture: English words');
  assert.deepEqual(errors, []);
  await context.close();
});

test('compare mode, its picker, the experiments view, an embed and the presenter view in ?lang=zh: no English words', async () => {
  const cmp = await open(browser, server.url + '?compare=bully,raft&preset=split-brain-bully&time=40&lang=zh');
  await check(cmp.page, 'compare');
  await cmp.page.getByTestId('compare').click();
  await check(cmp.page, 'compare picker', '.overlay');
  await shot(cmp.page, 'i18n-walk-compare-zh');
  assert.deepEqual(cmp.errors, []);
  await cmp.context.close();

  const emb = await open(browser, server.url + '?preset=split-brain-bully&step=30&embed=1&lang=zh');
  await check(emb.page, 'embed');
  assert.deepEqual(emb.errors, []);
  await emb.context.close();

  const present = await open(browser, server.url + '?lesson=bully&present=1&lang=zh', { width: 1920, height: 1080 });
  await present.page.getByTestId('lesson-caption').waitFor();
  await check(present.page, 'presenter view');
  assert.deepEqual(present.errors, []);
  await present.context.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(server.url + '?experiment=raft-figure-16-randomness&lang=zh');
  await page.getByTestId('experiments').waitFor();
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.getByTestId('experiment-trials').fill('10');
  await page.getByTestId('experiment-run').click();
  await page.getByTestId('experiment-plot').waitFor({ timeout: 60000 });
  await check(page, 'experiments');
  await shot(page, 'i18n-walk-experiments-zh');
  await context.close();
});
