// Dropping a message by clicking its dot: recorded like any intervention (event log, timeline,
// link), the dot is drawn doomed, and the step that would have delivered it is a drop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('clicking a message dot drops it; the drop is recorded and shows as a drop', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst&step=3');
  const dot = page.locator('svg.canvas g.dot[role="button"]').first();
  const id = await dot.getAttribute('data-id');
  assert.match(await dot.getAttribute('aria-label'), new RegExp(`^Drop message #${id} [A-Z_]+ from N\\d+ to N\\d+$`));
  assert.equal(await dot.evaluate((e) => getComputedStyle(e).cursor), 'pointer');
  // The hit area is a little larger than the dot.
  const [hit, disc] = await dot.evaluate((g) => [...g.querySelectorAll('circle')].map((c) => Number(c.getAttribute('r'))));
  assert.ok(hit > disc, `hit radius ${hit} > dot radius ${disc}`);

  await dot.click();
  await page.waitForSelector(`g.dot.doomed[data-id="${id}"]`);
  const doomed = page.locator(`g.dot[data-id="${id}"]`);
  assert.equal(await doomed.getAttribute('role'), null, 'a doomed dot is no longer a button');
  assert.equal(await step(page), 3, 'dropping does not move the cursor');
  assert.equal(await page.locator('[data-partition]').count(), 0, 'a click on a dot draws no line');
  const iv = page.locator('.log li.iv', { hasText: `drop message #${id}` });
  assert.equal(await iv.count(), 1, 'the event log lists the intervention');
  assert.match(await iv.textContent(), /after step 3: you — drop message #\d+/);
  assert.equal(await page.locator(`.marker.fault[title="you: drop message #${id}"]`).count(), 1, 'a timeline marker');
  assert.match(page.url(), /[?&]t=1\./, 'the link carries the drop');
  await shot(page, 'drop-doomed');

  // Step until it would have arrived: that step is a drop, and its ghost fades where it was lost.
  for (let i = 0; i < 50 && await doomed.count() > 0; i++) await page.keyboard.press('ArrowRight');
  assert.equal(await doomed.count(), 0, 'the message is gone');
  const current = page.locator('.log li.current');
  assert.match(await current.getAttribute('class'), /\bdrop\b/);
  assert.match(await current.textContent(), /dropped \(manual\)/);
  assert.ok(await page.locator('.ghost[data-dropped]').count() > 0, 'the ghost of the dropped message');
  await shot(page, 'drop-dropped');

  // The page's own link reopens with the drop in place.
  const at = await step(page);
  await page.reload();
  await page.waitForSelector('[data-node]:not(#first-frame *)');
  assert.equal(await step(page), at);
  assert.equal(await page.locator('.log li.iv', { hasText: `drop message #${id}` }).count(), 1);
  assert.deepEqual(errors, []);
});

test('keyboard: Enter on a focused dot drops it; lines and node clicks still work with dots about', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=ring-worst&step=3');
  const dot = page.locator('svg.canvas g.dot[role="button"]').first();
  const id = await dot.getAttribute('data-id');
  await dot.focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector(`g.dot.doomed[data-id="${id}"]`);
  assert.equal(await step(page), 3, 'Enter on a dot does not step');

  // A drag that starts on empty canvas still draws a partition line.
  const box = await page.locator('svg.canvas').boundingBox();
  const s = Math.min(box.width, box.height) / 1000;
  const at = (x, y) => [box.x + (box.width - 1000 * s) / 2 + x * s, box.y + (box.height - 1000 * s) / 2 + y * s];
  const [x1, y1] = at(20, 20), [x2, y2] = at(980, 300);
  await page.mouse.move(x1, y1);
  await page.mouse.down();
  await page.mouse.move(x2, y2, { steps: 6 });
  await page.mouse.up();
  await page.waitForSelector('[data-partition="0"]');

  // And a node still crashes on a click.
  const node = page.locator('[data-node]').first();
  await node.locator('.disc').click();
  assert.equal(await node.getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
});
