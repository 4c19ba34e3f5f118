// What the page can draw: a scenario of 5 000 nodes (which the engine and the command line run)
// is refused on import with a message, in each language, and the page goes on answering:
// the run shown is kept, End and the arrow keys still move it.
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

// The browser reads a picked file from disk after the picker returns, so the file stays until
// `answered` (the page's answer to it) has been seen.
async function importFile(page, name, text, answered) {
  const dir = await mkdtemp(join(tmpdir(), 'election-lab-'));
  const file = join(dir, name);
  await writeFile(file, text);
  try {
    await page.getByTestId('import').setInputFiles(file);
    await answered();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const [lang, words] of [['en', /5000 nodes: the page draws at most 256/], ['zh', /5000 个节点.*256/]]) {
  test(`a 5 000-node import gets a message (${lang}) and the page stays usable`, async () => {
    const { page, errors } = await open(browser, server.url + `?preset=ring-best&step=3&lang=${lang}`);
    const before = await page.locator('svg.canvas').innerHTML();
    const nodes = Array.from({ length: 5000 }, (_, i) => i + 1);
    const alert = page.getByRole('alert');
    const scenario = JSON.stringify({ algorithm: 'bully', nodes, seed: 1, stop: { max_time: 2000 } });
    await importFile(page, 'nodes-5000.json', scenario, () => alert.waitFor());
    assert.match(await alert.textContent(), words);
    assert.equal(await page.locator('svg.canvas').innerHTML(), before, 'the run shown is kept');
    assert.equal(await step(page), 3);
    await page.keyboard.press('ArrowRight');
    assert.equal(await step(page), 4);
    // End runs the kept run to its end, and the page answers after it.
    const shown = () => Number(document.querySelector('[data-testid=step]').textContent.match(/\d+/)[0]);
    await page.keyboard.press('End');
    await page.waitForFunction(`(${shown})() > 4`);
    await page.keyboard.press('Home');
    await page.waitForFunction(`(${shown})() === 0`);
    assert.deepEqual(errors, []);
  });
}

test('a JSON Lines trace longer than the text limit is imported from its header', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-best&step=3');
  const header = JSON.stringify({
    format: 'election-lab-trace/2',
    scenario: { algorithm: 'raft', nodes: [1, 2, 3, 4, 5], seed: 425, initial_leader: 5,
                heartbeats: { interval: 2, timeout: 10 }, stop: { max_time: 300 } },
    interventions: [],
    step: 40,
  });
  // The step lines that follow repeat the run; only the header is read.
  const line = JSON.stringify({ step: 1, time: 1, event: 'timer', node: 1 }) + '\n';
  const body = header + '\n' + line.repeat(Math.ceil(5e6 / line.length));
  assert.ok(body.length > 4e6);
  await importFile(page, 'long.jsonl', body, () =>
    page.waitForFunction(() => Number(document.querySelector('[data-testid=step]').textContent.match(/\d+/)[0]) === 40));
  assert.equal(await page.getByRole('alert').count(), 0);
  assert.deepEqual(errors, []);
});
