// Bounded by design, in the page: a file past the engine's size limit is refused by its size
// before it is read, with a message naming it, and the run shown is kept; a trap in the wasm
// (which no Rust panic hook sees) shows a panel that reloads the run in the address bar.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, open } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const step = async (page) => Number((await page.getByTestId('step').textContent()).match(/\d+/)[0]);

test('a 50 MB import is refused by its size, naming the file, and the run is kept', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-best&step=3');
  const before = await page.locator('svg.canvas').innerHTML();
  // A scenario of about 2.7 million actions, as the issue measured.
  const head = '{"algorithm":"bully","nodes":[1,2,3],"schedule":[';
  const action = '{"at":1,"crash":2},';
  const big = Buffer.from(head + action.repeat(Math.ceil(50e6 / action.length)) + '{"at":1,"crash":2}]}');
  assert.ok(big.length > 50e6);
  // From disk: the browser opens the file itself (a 50 MB buffer sent through the driver is slow).
  const dir = await mkdtemp(join(tmpdir(), 'election-lab-'));
  const file = join(dir, 'huge.json');
  await writeFile(file, big);
  // The file stays on disk until the page has answered: the browser reads it after the picker.
  const alert = page.getByRole('alert');
  try {
    await page.getByTestId('import').setInputFiles(file);
    await alert.waitFor();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const text = await alert.textContent();
  assert.match(text, /Import failed, nothing changed: huge\.json: \d+ bytes is more than the \d+/);
  assert.equal(await page.locator('svg.canvas').innerHTML(), before, 'the run shown is kept');
  assert.equal(await step(page), 3);
  // The page still works.
  await page.keyboard.press('ArrowRight');
  assert.equal(await step(page), 4);
  assert.deepEqual(errors, []);
});

test('a trap in the wasm shows a panel in the page language that reloads the last run', async () => {
  const { page } = await open(browser, server.url + '?preset=ring-best&step=2&lang=zh');
  const url = page.url();
  await page.evaluate(() => setTimeout(() => { throw new WebAssembly.RuntimeError('unreachable'); }));
  const panel = page.getByTestId('trap-panel');
  await panel.waitFor();
  assert.match(await panel.textContent(), /出错了.*重新加载/s);
  await Promise.all([page.waitForNavigation(), panel.getByRole('button').click()]);
  assert.equal(page.url(), url);
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  assert.equal(await step(page), 2);
});
