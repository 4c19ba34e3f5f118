// Real clusters' logs in Chromium: the committed sample logs (crate/tests/data/real, made by
// scripts/real-cluster.sh) chosen together in the Import… picker, the real run stepped to its new
// leader, then "Replay in the simulator": the real run and the textbook model in two lanes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join, dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, shot, stepUntil } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const DATA = join(here, '..', '..', '..', 'crate', 'tests', 'data', 'real');

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The leader the cluster reported after the kill, as the script wrote it in status.txt. */
async function reported(dir) {
  const status = await readFile(join(DATA, dir, 'status.txt'), 'utf8');
  return status.split('\n').find((l) => l.startsWith('after: ')).split(' ')[2];
}

for (const [dir, files, kind, model] of [
  ['etcd-zap', ['c.log', 'a.log', 'b.log'], 'etcd', 'raft'],
  ['zookeeper', ['3.log', '1.log', '2.log'], 'zookeeper', 'zookeeper'],
]) {
  test(`${kind}: the sample logs through the file picker, stepped to the new leader, replayed in the simulator in two lanes`, async () => {
    const { page, errors } = await open(browser, server.url);
    await page.getByTestId('import').setInputFiles(files.map((f) => join(DATA, dir, f)));
    // Read by the shipped mapping that fits, named in the notice.
    await page.getByText(new RegExp(`Imported 3 .*\\(read by the mapping ${kind}\\) log file`)).waitFor();
    assert.equal(await page.locator('svg.canvas [data-node]').count(), 3);
    // etcd members are numbered by name (a, b, c → 1, 2, 3); ZooKeeper servers by myid.
    const name = await reported(dir);
    const node = kind === 'etcd' ? { a: 1, b: 2, c: 3 }[name] : Number(name);
    // Step on until the member the cluster reported leads, after the old leader crashed.
    const crashed = async () => (await page.locator('[data-status="crashed"]').count()) === 1;
    const leads = async () => (await page.locator(`[data-node="${node}"][data-role="${kind === 'etcd' ? 'leader' : 'leading'}"]`).count()) === 1;
    assert.ok(await stepUntil(page, async () => (await crashed()) && (await leads())), 'the new leader is reached');
    // Narrated from the log, not from the model.
    assert.match(await page.getByTestId('narration').textContent(), /\(its log\)|gets/);
    await shot(page, `real-logs-${kind}`);
    await page.getByTestId('replay-model').click();
    const lanes = page.locator('section.lane');
    assert.equal(await lanes.count(), 2);
    assert.deepEqual(await lanes.evaluateAll((ls) => ls.map((l) => l.dataset.algorithm)), [`${kind}-log`, model]);
    // The real lane shows the leader it has at this time; both lanes stand on one clock.
    assert.equal(await page.locator('section.lane').first().getAttribute('data-leaders'), String(node));
    await shot(page, `real-logs-${kind}-replay`);
    assert.deepEqual(errors, []);
  });
}

test('a file that is neither a scenario nor a cluster log is refused with a clear message', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-heartbeats');
  await page.getByTestId('import').setInputFiles([{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello\nworld\n') }]);
  await page.getByText(/Import failed, nothing changed: these files are neither a scenario, an events file/).waitFor();
  assert.equal(await page.locator('svg.canvas [data-node]').count(), 6, 'the run shown is kept');
  assert.deepEqual(errors, []);
});
