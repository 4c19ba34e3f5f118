// Any system's logs in Chromium: a Redis Sentinel log set and one merged etcd log, chosen in the
// Import… picker, read by the shipped mapping that fits (named in the notice), and the logs of a
// system the app does not ship (crate/tests/data/fake-system/kiln.py, run here) with its own
// mapping beside them; each stepped to the new leader, with the conformance panel's verdict. An
// etcd leader frozen (SIGSTOP) and resumed is drawn paused, not crashed, while the others elect,
// told as a stale leader (not a split brain) while paused. A killed leader's crash is drawn on the
// space-time diagram as its evidence band, its tooltip naming the victim's last line and its
// peers' first report of the loss.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { serve, launch, open, shot, axe, stepUntil } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DATA = join(here, '..', '..', '..', 'crate', 'tests', 'data', 'real');

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const leads = (page, node) => async () =>
  (await page.locator(`[data-node="${node}"][data-role="leader"]`).count()) === 1;

async function verdict(page) {
  const v = page.getByTestId('conformance-verdict');
  await v.waitFor();
  return v.textContent();
}

test('a Redis Sentinel log set: read by the sentinel mapping, stepped to the Sentinel that led the failover, and it conforms', async () => {
  const { page, errors } = await open(browser, server.url);
  const files = ['s2.log', 's1.log', 's3.log'];
  await page.getByTestId('import').setInputFiles(files.map((f) => join(DATA, 'sentinel', f)));
  await page.getByText(/Redis Sentinel 7\.0 \(read by the mapping sentinel\)/).waitFor();
  assert.equal(await page.locator('svg.canvas [data-node]').count(), 3);
  // Members are numbered by file name (s1, s2, s3): the leader is the one whose log elected it.
  let node = 0;
  for (const [i, f] of ['s1.log', 's2.log', 's3.log'].entries()) {
    if ((await readFile(join(DATA, 'sentinel', f), 'utf8')).includes('+elected-leader')) node = i + 1;
  }
  assert.ok(node > 0, 'a Sentinel log elected a leader');
  assert.match(await verdict(page), /conforms: every one of \d+ election lines is a step of the raft model/);
  assert.ok(await stepUntil(page, leads(page, node)), 'the leader Sentinel is reached');
  await shot(page, 'import-any-sentinel');
  assert.deepEqual(errors, []);
});

test('one merged etcd log: read by the etcd mapping, one leader after the kill (no invented split brain), and it conforms', async () => {
  const { page, errors } = await open(browser, server.url);
  let merged = '';
  for (const f of ['a.log', 'b.log', 'c.log']) merged += await readFile(join(DATA, 'etcd-zap', f), 'utf8');
  await page.getByTestId('import').setInputFiles([{ name: 'merged.log', mimeType: 'text/plain', buffer: Buffer.from(merged) }]);
  await page.getByText(/\(read by the mapping etcd\)/).waitFor();
  assert.equal(await page.locator('svg.canvas [data-node]').count(), 3);
  const status = await readFile(join(DATA, 'etcd-zap', 'status.txt'), 'utf8');
  const name = status.split('\n').find((l) => l.startsWith('after: ')).split(' ')[2];
  const node = { a: 1, b: 2, c: 3 }[name];
  const crashed = async () => (await page.locator('[data-status="crashed"]').count()) === 1;
  assert.ok(await stepUntil(page, async () => (await crashed()) && (await leads(page, node)())), 'the new leader is reached');
  assert.equal(await page.getByTestId('split-brain').count(), 0, 'no split brain');
  assert.match(await verdict(page), /conforms: every one of \d+ election lines is a step of the raft model/);
  await shot(page, 'import-any-merged-etcd');
  assert.deepEqual(errors, []);
});

test('a system the app does not ship: its logs and its own mapping chosen together, stepped to its new leader, and it conforms', async () => {
  const { page, errors } = await open(browser, server.url);
  const FAKE = join(DATA, '..', 'fake-system');
  const dir = mkdtempSync(join(tmpdir(), 'kiln-'));
  execFileSync('python3', [join(FAKE, 'kiln.py'), dir, '7']);
  const status = await readFile(join(dir, 'status.txt'), 'utf8');
  const name = status.split('\n').find((l) => l.startsWith('after: ')).split(' ')[2];
  const node = { ant: 1, bee: 2, cat: 3 }[name];
  const files = ['ant.log', 'bee.log', 'cat.log'].map((f) => join(dir, f));
  await page.getByTestId('import').setInputFiles([...files, join(FAKE, 'kiln-mapping.json')]);
  await page.getByText(/kiln 0\.3 \(read by the mapping kiln-mapping\.json\)/).waitFor();
  assert.equal(await page.locator('svg.canvas [data-node]').count(), 3);
  const crashed = async () => (await page.locator('[data-status="crashed"]').count()) === 1;
  assert.ok(await stepUntil(page, async () => (await crashed()) && (await leads(page, node)())), 'the new leader is reached');
  assert.match(await verdict(page), /conforms: every one of \d+ election lines is a step of the raft model/);
  await shot(page, 'import-any-kiln');
  assert.deepEqual(errors, []);
});

test('a frozen etcd leader: drawn paused (not crashed) while the others elect a new leader, and it conforms', async () => {
  const { page, errors } = await open(browser, server.url);
  const dir = join(DATA, 'etcd-zap-freeze');
  await page.getByTestId('import').setInputFiles(['a.log', 'b.log', 'c.log'].map((f) => join(dir, f)));
  // One log per etcd member goes to the etcd importer: the three members replace the preset's nodes.
  await page.waitForFunction(() => document.querySelectorAll('svg.canvas [data-node]').length === 3);
  const status = await readFile(join(dir, 'status.txt'), 'utf8');
  const word = (prefix, k) => status.split('\n').find((l) => l.startsWith(prefix)).split(' ')[k];
  const [frozen, leader] = [{ a: 1, b: 2, c: 3 }[word('froze ', 1)], { a: 1, b: 2, c: 3 }[word('after: ', 2)]];
  const paused = async () => (await page.locator(`[data-node="${frozen}"][data-paused="1"]`).count()) === 1;
  assert.ok(await stepUntil(page, async () => (await paused()) && (await leads(page, leader)())), 'the new leader is reached while the old one is paused');
  assert.equal(await page.locator('[data-status="crashed"]').count(), 0, 'a pause is no crash');
  // The stale-leader story, not a split brain: the paused member acts on nothing while paused.
  assert.equal(await page.getByTestId('split-brain').count(), 0, 'a paused believer is no second acting leader');
  assert.equal(await page.getByTestId('paused-leader').textContent(), `N${frozen} is paused and still believes it leads; N${leader} leads now.`);
  assert.equal(await page.locator('.legend-extra[data-extra="paused"]').count(), 1, 'the legend names the paused look');
  assert.match(await verdict(page), /conforms: every one of \d+ election lines is a step of the raft model/);
  const found = await axe(page);
  assert.deepEqual(found, [], found.join('\n'));
  await shot(page, 'import-any-etcd-freeze');
  // It wakes: no longer paused.
  assert.ok(await stepUntil(page, async () => !(await paused())), 'the frozen leader resumes');
  assert.deepEqual(errors, []);
});

test('a killed etcd leader: the evidence band on the space-time diagram names its last line and its peers\' first report', async () => {
  const { page, errors } = await open(browser, server.url);
  const dir = join(DATA, 'etcd-zap');
  await page.getByTestId('import').setInputFiles(['a.log', 'b.log', 'c.log'].map((f) => join(dir, f)));
  await page.waitForFunction(() => document.querySelectorAll('svg.canvas [data-node]').length === 3);
  // The step that crashes it is at the end of the band: the diagram around it shows the band.
  const victim = page.locator('svg.canvas [data-status="crashed"]');
  assert.ok(await stepUntil(page, async () => (await victim.count()) === 1), 'the leader is crashed');
  const node = await victim.getAttribute('data-node');
  const band = page.locator(`svg.spacetime rect.st-evidence[data-node="${node}"]`);
  assert.equal(await band.count(), 1, 'the band is drawn');
  const title = await band.locator('title').textContent();
  const m = title.match(/^N(\d+) crashed between its last line \((\w+\.log):(\d+), (\d+) ms\) and its peers' first report of the loss \((\w+\.log):(\d+), (\d+) ms\)$/);
  assert.ok(m, title);
  assert.equal(m[1], node);
  // The victim's last line is the last line of its own log (etcd members are numbered a, b, c).
  const own = ['a.log', 'b.log', 'c.log'][Number(node) - 1];
  const lines = (await readFile(join(dir, own), 'utf8')).split('\n');
  const last = lines.findLastIndex((l) => l.trim() !== '') + 1;
  assert.deepEqual([m[2], Number(m[3])], [own, last]);
  // The first report is a peer's line about the lost connection, after it.
  assert.notEqual(m[5], own);
  const report = (await readFile(join(dir, m[5]), 'utf8')).split('\n')[Number(m[6]) - 1];
  assert.match(report, /lost TCP streaming connection/);
  assert.ok(Number(m[4]) < Number(m[7]), title);
  assert.equal(await page.locator('.st-legend .st-evidence-key').count(), 1, 'the legend says what the band is');
  assert.deepEqual(errors, []);
});
