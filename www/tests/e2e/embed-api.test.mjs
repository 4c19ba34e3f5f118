// A host page drives an embedded lab with postMessage: the example lecture notes
// (docs/embed-example.html, copied into dist/ by Trunk), and a host on another origin that
// sends junk and out-of-range commands.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { serve, launch, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** A host page with its console errors, recording the lab's events in `window.__got`. */
async function host(url) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 1000 } });
  await context.addInitScript(() => {
    window.__got = [];
    window.addEventListener('message', (e) => { if (e.data && e.data.type === 'election-lab' && e.data.event) window.__got.push(e.data); });
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  const lab = page.frameLocator('#lab');
  await lab.locator('[data-node]').first().waitFor();
  return { page, lab, errors, got: () => page.evaluate(() => window.__got) };
}

const stepOf = async (lab) => Number(await lab.getByTestId('step').textContent());

test('the example lecture notes drive the embed with their buttons and show its step', async () => {
  const { page, lab, errors, got } = await host(server.url + 'embed-example.html');
  const status = page.locator('#status');
  await page.waitForFunction(() => /^Step 7, t = 5: leader N5\.$/.test(document.getElementById('status').textContent));
  assert.equal(await stepOf(lab), 7);
  assert.equal(await lab.locator('[data-partition]').count(), 1, 'the embed shows the drawn partition');

  await page.getByRole('button', { name: 'Step forward' }).click();
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Step 8,'));
  assert.equal(await stepOf(lab), 8);

  await page.getByRole('button', { name: /Jump to the split brain/ }).click();
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Step 41,'));
  assert.equal(await stepOf(lab), 41);
  assert.match(await status.textContent(), /leaders N2 and N5: split brain\.$/);
  assert.match(await status.getAttribute('class'), /split/);
  const events = await got();
  assert.deepEqual(events.map((e) => e.step), [7, 8, 41]);
  assert.deepEqual(events.at(-1), { type: 'election-lab', event: 'step', step: 41, time: 16, leaders: [2, 5] });
  await shot(page, 'embed-example');
  assert.deepEqual(errors, []);
});

test('a host on another origin: junk is ignored, seeks are clamped, play and pause work', async () => {
  const src = `${server.url}?preset=ring-worst&embed=1`;
  const other = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!DOCTYPE html><title>host</title><iframe id="lab" src="${src}" width="600" height="640"></iframe>`);
  });
  await new Promise((ok) => other.listen(0, '127.0.0.1', ok));
  try {
    const { page, lab, errors, got } = await host(`http://127.0.0.1:${other.address().port}/`);
    const labOrigin = new URL(server.url).origin;
    assert.notEqual(new URL(page.url()).origin, labOrigin, 'the host is cross-origin');
    await page.waitForFunction(() => window.__got.length === 1);
    assert.deepEqual(await got(), [{ type: 'election-lab', event: 'step', step: 0, time: 0, leaders: [] }]);
    const send = (...msgs) => page.evaluate((msgs) => { for (const m of msgs) document.getElementById('lab').contentWindow.postMessage(m, '*'); }, msgs);
    // After each batch, a marker command whose effect is known tells that the batch was read.
    const seek = (n) => ({ type: 'election-lab', cmd: 'seek', step: n });
    const settled = async (step) => {
      await page.waitForFunction((s) => window.__got.at(-1)?.step === s, step);
      assert.equal(await stepOf(lab), step);
    };

    await send('step', null, 42, [], { cmd: 'step' }, { type: 'other', cmd: 'step' }, { type: 'election-lab', cmd: 'explode' },
      { type: 'election-lab', cmd: 'seek' }, { type: 'election-lab', cmd: 'seek', step: 'abc' }, { type: 'election-lab', cmd: 'seek', step: null },
      { type: 'election-lab', cmd: 'STEP' }, seek(5));
    await settled(5);
    assert.deepEqual((await got()).map((e) => e.step), [0, 5], 'nothing but the seek moved the lab');

    // A message the lab posts to itself is not from its host: ignored.
    await page.frames().find((f) => f.url().startsWith(labOrigin)).evaluate(() => window.postMessage({ type: 'election-lab', cmd: 'step' }, '*'));
    await send(seek(3.7));
    await settled(3);
    await send(seek(-5));
    await settled(0);
    await send(seek(1e12));
    // Wait for the lab's report of that seek (reading at once races with it on a busy machine).
    await page.waitForFunction(() => (window.__got.at(-1)?.step ?? 0) > 10);
    const end = (await got()).at(-1).step;
    assert.ok(end > 10, `a huge seek is clamped to the computed run (${end})`);
    assert.equal(await stepOf(lab), end);
    // Commands in a burst: the host hears where they lead (steps passed in between may be
    // reported together, as the lab draws once for them).
    await send(seek(2), { type: 'election-lab', cmd: 'step' }, { type: 'election-lab', cmd: 'step' }, { type: 'election-lab', cmd: 'back' });
    await settled(3);
    await send({ type: 'election-lab', cmd: 'back' });
    await settled(2);
    await send({ type: 'election-lab', cmd: 'step' });
    await settled(3);

    // Play, play again (still playing), then pause.
    await send({ type: 'election-lab', cmd: 'play' }, { type: 'election-lab', cmd: 'play' });
    await lab.getByRole('button', { name: 'Pause' }).waitFor();
    await page.waitForFunction(() => window.__got.at(-1).step >= 6);
    await send({ type: 'election-lab', cmd: 'pause' });
    await lab.getByRole('button', { name: 'Play' }).waitFor();
    const paused = await stepOf(lab);
    assert.ok(paused >= 6);
    // Thirty of the lab's animation frames later (a playing lab steps on its frames) it stands.
    await page.frames().find((f) => f.url().startsWith(labOrigin)).evaluate(() => new Promise((done) => {
      let k = 0;
      const tick = () => { if (++k < 30) requestAnimationFrame(tick); else done(); };
      requestAnimationFrame(tick);
    }));
    assert.equal(await stepOf(lab), paused, 'paused');
    const last = (await got()).at(-1);
    assert.equal(last.step, paused);
    assert.equal(typeof last.time, 'number');
    assert.ok(Array.isArray(last.leaders));
    assert.deepEqual(errors, []);
  } finally {
    await new Promise((ok) => other.close(ok));
  }
});
