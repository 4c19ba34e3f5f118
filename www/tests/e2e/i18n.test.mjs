// The text catalogs in the page: English is compiled in and an English page never requests the
// Chinese catalog (zh.json); choosing Chinese fetches it once, the page stays in English until it
// has arrived, then switches without losing the run or the step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const CJK = /[\u4e00-\u9fff]/;
const isCatalog = (u) => new URL(u).pathname.endsWith('/zh.json');

/** A page that records every request it makes and every console error. */
async function page(url, hold) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const p = await context.newPage();
  const requests = [];
  const errors = [];
  p.on('request', (r) => requests.push(r.url()));
  p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  p.on('pageerror', (e) => errors.push(String(e)));
  if (hold) await p.route('**/zh.json', async (route) => { await hold; await route.continue(); });
  await p.goto(url);
  await p.waitForSelector('[data-node]:not(#first-frame *)');
  return { p, requests, errors, context };
}

const step = async (p) => Number(await p.getByTestId('step').textContent());
const narration = async (p) => p.getByTestId('narration').textContent();

test('an English page never requests zh.json; the switch fetches it once and keeps the step', async () => {
  let release;
  const gate = new Promise((ok) => { release = ok; });
  const { p, requests, errors, context } = await page(server.url + '?preset=bully-worst-8&lang=en', gate);
  // Use the English page: step, open the help and the card, step again.
  for (let i = 0; i < 7; i++) await p.keyboard.press('ArrowRight');
  await p.keyboard.press('?');
  await p.keyboard.press('Escape');
  await p.getByTestId('how-it-works').click();
  await p.keyboard.press('Escape');
  const at = await step(p);
  assert.equal(at, 7);
  assert.doesNotMatch(await narration(p), CJK);
  assert.ok(requests.some((u) => u.endsWith('.wasm')), 'the page loaded its wasm');
  assert.deepEqual(requests.filter(isCatalog), [], 'an English page requests no Chinese catalog');

  // Switch: the catalog is requested, and held back by the route above. Until it arrives the
  // page stays in English at the same step.
  const asked = p.waitForRequest((r) => isCatalog(r.url()));
  await p.getByTestId('lang').click();
  await asked;
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'en');
  assert.doesNotMatch(await narration(p), CJK);
  assert.equal(await step(p), at);
  assert.match(p.url(), /lang=zh/, 'the link already asks for Chinese');

  // It arrives: Chinese, same run, same step.
  release();
  await p.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.match(await narration(p), CJK);
  assert.equal(await step(p), at);
  assert.match(p.url(), new RegExp(`step=${at}\\b`));
  await shot(p, 'i18n-switched-zh');

  // Back to English and to Chinese again: nothing more is fetched.
  await p.getByTestId('lang').click();
  await p.waitForFunction(() => document.documentElement.lang === 'en');
  assert.doesNotMatch(await narration(p), CJK);
  await p.getByTestId('lang').click();
  await p.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.equal(await step(p), at);
  assert.equal(requests.filter(isCatalog).length, 1, 'the catalog is fetched once');
  assert.deepEqual(errors, []);
  await context.close();
});

test('?lang=zh fetches the catalog once and opens in Chinese; ?lang=en and no lang do not', async () => {
  const zh = await page(server.url + '?preset=ring-worst&step=5&lang=zh');
  await zh.p.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  assert.match(await narration(zh.p), CJK);
  assert.equal(await step(zh.p), 5);
  assert.equal(zh.requests.filter(isCatalog).length, 1);
  assert.deepEqual(zh.errors, []);
  await zh.context.close();
  for (const q of ['?preset=ring-worst&step=5&lang=en', '?preset=ring-worst&step=5']) {
    const en = await page(server.url + q);
    // Step once more, so that the page has certainly run past its start-up effects.
    await en.p.keyboard.press('ArrowRight');
    assert.equal(await step(en.p), 6, q);
    assert.doesNotMatch(await narration(en.p), CJK, q);
    assert.deepEqual(en.requests.filter(isCatalog), [], q);
    assert.deepEqual(en.errors, [], q);
    await en.context.close();
  }
});

test('a catalog that cannot be fetched leaves the page in English with a notice', async () => {
  const context = await browser.newContext();
  const p = await context.newPage();
  await p.route('**/zh.json', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await p.goto(server.url + '?preset=ring-worst&step=5&lang=zh');
  await p.waitForSelector('[data-node]:not(#first-frame *)');
  await p.getByText(/Chinese texts could not be loaded/).waitFor();
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'en');
  assert.equal(await step(p), 5);
  await context.close();
});
