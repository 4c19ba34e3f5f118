// Compare mode in a real Chromium: real clicks, a real drag in one lane, the keyboard, links.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, drag } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const lane = (page, k) => page.locator(`section.lane[data-lane="lane-${k}"]`);
const time = async (page) => Number(await page.getByTestId('time').textContent());
const leadersOf = async (page, k) => lane(page, k).getAttribute('data-leaders');

// A lane's drawing and status as markup with attributes in a fixed order.
const laneHtml = (page, k) => lane(page, k).evaluate((root) => {
  const ser = (n) => n.nodeType === 3 ? n.textContent : n.nodeType !== 1 ? '' :
    `<${n.tagName}${[...n.attributes].map((a) => ` ${a.name}="${a.value}"`).sort().join('')}>${[...n.childNodes].map(ser).join('')}</${n.tagName}>`;
  return ser(root);
});
const tableText = (page) => page.getByTestId('compare-table').innerText();

/** Drags on lane `k`'s canvas from one viewBox point (0..1000) to another. */
const dragIn = (page, k, from, to) => drag(page, from, to, page.locator(`svg.canvas[data-lane="lane-${k}"]`));

test('Bully and Raft on the split-brain preset: one line drawn in the Raft lane splits Bully, not Raft, at the same time; back and forth stays in sync; the link reopens the view', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=split-brain-bully');
  await page.getByTestId('compare').click();
  const dialog = page.getByRole('dialog', { name: 'Compare algorithms' });
  // The running algorithm and the one that declares the same scenario are checked already.
  assert.equal(await dialog.locator('input[data-algorithm="bully"]').isChecked(), true);
  assert.equal(await dialog.locator('input[data-algorithm="raft"]').isChecked(), true);
  // Only these two (another algorithm that declares this scenario would be checked too).
  // (Read the ids first: unchecking a box shifts the positions of the checked ones.)
  const checked = await dialog.locator('input[type="checkbox"]:checked').evaluateAll((boxes) => boxes.map((b) => b.dataset.algorithm));
  for (const id of checked) {
    if (!['bully', 'raft'].includes(id)) await dialog.locator(`input[data-algorithm="${id}"]`).click();
  }
  assert.equal(await dialog.locator('input[type="checkbox"]:checked').count(), 2);
  assert.equal(await dialog.locator('input[data-algorithm="chang-roberts"]').count(), 0, 'a ring does not fit these nodes');
  assert.match(await dialog.getByTestId('unfit').textContent(), /Chang-Roberts ring/);
  await shot(page, 'compare-picker');
  await dialog.getByTestId('compare-go').click();
  assert.equal(await page.locator('section.lane').count(), 2);
  assert.equal(await lane(page, 1).getAttribute('data-algorithm'), 'bully');
  assert.equal(await lane(page, 2).getAttribute('data-algorithm'), 'raft');
  assert.match(page.url(), /\?compare=bully,raft&preset=split-brain-bully&time=0/);

  for (let i = 0; i < 5; i++) await page.getByRole('button', { name: 'Step forward' }).click();
  const cutAt = await time(page);
  assert.ok(cutAt > 0);
  // The line is drawn in the second lane; both lanes get it.
  await dragIn(page, 2, [250, 10], [990, 650]);
  await page.waitForSelector('svg[data-lane="lane-1"] [data-partition]');
  assert.equal(await page.locator('svg[data-lane="lane-2"] [data-partition]').count(), 1);
  assert.equal(await time(page), cutAt, 'a fault does not move the clock');
  assert.match(await tableText(page), /\{1,2\}: none · \{3,4,5\}: N5|\{1,2\}: N5/);

  let steps = 0;
  while ((await leadersOf(page, 1)) !== '2,5' && steps++ < 200) {
    await page.getByRole('button', { name: 'Step forward' }).click();
  }
  assert.equal(await leadersOf(page, 1), '2,5', 'Bully elected N2 in the minority');
  const splitAt = await time(page);
  assert.match(await lane(page, 1).getByTestId('split-brain').textContent(), /Split brain: N2, N5 each believe they lead/);
  assert.equal(await leadersOf(page, 2), '5', 'Raft: N5 alone leads');
  assert.equal(await lane(page, 2).locator('[role="alert"]').count(), 0);
  assert.equal(await lane(page, 2).locator('.lane-claims .bad').count(), 0);
  assert.equal(await lane(page, 1).locator('.lane-claims .bad[data-property="split-brain"]').count(), 1);
  const table = await tableText(page);
  assert.match(table, /Bully\s+\{1,2\}: N2 · \{3,4,5\}: N5\s+Single leader ×1/);
  assert.match(table, /Raft-style quorum\s+\{1,2\}: none · \{3,4,5\}: N5\s+0/);
  assert.match(table, new RegExp(`Side by side at t = ${splitAt}`));
  await shot(page, 'compare-split-brain-wide');

  // Back and forth, by button and by key: the lanes stay on one clock and redraw the same.
  const here = [await laneHtml(page, 1), await laneHtml(page, 2)];
  await page.getByRole('button', { name: 'Step back' }).click();
  await page.keyboard.press('ArrowLeft');
  const back = await time(page);
  assert.ok(back < splitAt);
  assert.equal(await lane(page, 1).getByTestId('split-brain').count(), 0, 'two ticks earlier N2 had not won yet');
  await page.keyboard.press('ArrowRight');
  await page.getByRole('button', { name: 'Step forward' }).click();
  assert.equal(await time(page), splitAt);
  assert.deepEqual([await laneHtml(page, 1), await laneHtml(page, 2)], here);

  // The link reopens the same view.
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.getByTestId('share-text').inputValue();
  assert.match(link, /\?compare=bully,raft&t=1\.[^&]+&time=\d+/);
  const again = await open(browser, link);
  assert.equal(await time(again.page), splitAt);
  assert.deepEqual([await laneHtml(again.page, 1), await laneHtml(again.page, 2)], here);
  assert.equal(await tableText(again.page), table);
  assert.deepEqual(again.errors, []);
  await again.context.close();

  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByRole('button', { name: 'Copy embed code' }).click();
  const iframe = await page.getByTestId('share-text').inputValue();
  assert.match(iframe, /<iframe src="[^"]*\?compare=bully,raft&t=1\.[^"&]+&time=\d+&embed=1"/);

  // Close: the scenario's own algorithm (Bully) alone, with the line, at the same time.
  await page.getByRole('button', { name: 'Close', exact: true }).click();
  await page.getByTestId('close-compare').click();
  assert.equal(await page.locator('section.lane').count(), 0);
  assert.equal(await time(page), splitAt);
  assert.equal(await page.locator('[data-partition]').count(), 1);
  assert.match(await page.getByTestId('split-brain').textContent(), /N2, N5/);
  assert.deepEqual(errors, []);
});

test('a crash clicked in one lane happens in every lane, and playing keeps one clock', async () => {
  const { page, errors } = await open(browser, server.url + '?compare=bully,raft,invitation&preset=split-brain-bully&time=12');
  assert.equal(await page.locator('section.lane').count(), 3);
  await lane(page, 3).locator('[data-node="5"]').click();
  for (const k of [1, 2, 3]) {
    assert.equal(await lane(page, k).locator('[data-node="5"]').getAttribute('data-status'), 'crashed', `lane ${k}`);
  }
  await page.getByRole('button', { name: 'Play' }).click();
  // Played on until the clock has moved well past t = 12 (a condition, not a fixed wait).
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="time"]')?.textContent) > 20);
  await page.getByRole('button', { name: 'Pause' }).click();
  const t = await time(page);
  assert.ok(t > 12, `played on from t = 12 to ${t}`);
  // Every lane is drawn at the shared time, and the table says the same time.
  assert.match(await tableText(page), new RegExp(`t = ${t}\\b`));
  // Undo takes the crash back from every lane.
  await page.keyboard.press('Control+z');
  assert.equal(await time(page), 12);
  for (const k of [1, 2, 3]) {
    assert.equal(await lane(page, k).locator('[data-node="5"]').getAttribute('data-status'), 'up', `lane ${k}`);
  }
  assert.deepEqual(errors, []);
});

test('bad compare links name what is wrong and the page keeps working', async () => {
  for (const [q, says] of [
    ['?compare=bully,nope&preset=split-brain-bully', "no algorithm named 'nope'"],
    ['?compare=raft&preset=split-brain-bully', "1 algorithm(s) given ('raft'); compare mode shows 2 to 4"],
    ['?compare=bully,raft,invitation,lelann,token-ring&preset=split-brain-bully', '5 algorithm(s) given'],
    ['?compare=bully,bully&preset=split-brain-bully', "'bully' is listed twice"],
  ]) {
    const { page, errors, context } = await open(browser, server.url + q);
    assert.match(await page.locator('.banner.error').textContent(), new RegExp(says.replace(/[()]/g, '\\$&')), q);
    assert.equal(await page.locator('section.lane').count(), 0, q);
    await page.getByRole('button', { name: 'Step forward' }).click();
    assert.equal(await page.getByTestId('step').textContent(), '1', `${q}: the page still steps`);
    assert.deepEqual(errors, [], q);
    await context.close();
  }
});

test('the split-brain compare preset: V opens the picker, lanes stack on a narrow screen, 中文, embeds', async () => {
  const narrow = await open(browser, server.url + '?preset=ring-worst&lang=zh', { width: 375, height: 800 });
  const page = narrow.page;
  await page.keyboard.press('v');
  await page.getByTestId('compare-preset').click();
  const n = await page.locator('section.lane').count();
  assert.ok(n >= 2 && n <= 4, `${n} lanes`);
  const algs = await page.locator('section.lane').evaluateAll((els) => els.map((e) => e.dataset.algorithm));
  assert.ok(algs.includes('bully') && algs.includes('raft'), `the course's pair: ${algs}`);
  for (let k = 1; k <= n; k++) {
    assert.equal(await lane(page, k).locator('svg.canvas[data-lane] [data-node]').count(), 5);
    assert.equal((await lane(page, k).locator('.lane-claims li').count()) > 0, true);
  }
  // Stacked: one lane under the other, each as wide as the screen allows.
  const boxes = await Promise.all([1, 2].map((k) => lane(page, k).boundingBox()));
  assert.ok(boxes[1].y > boxes[0].y + boxes[0].height - 1 && Math.abs(boxes[1].x - boxes[0].x) < 1, JSON.stringify(boxes));
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'no sideways scroll of the page');
  assert.match(await page.getByTestId('compare-table').innerText(), /各分区的领导者/);
  assert.match(page.url(), /[?&]lang=zh/);
  await shot(page, 'compare-preset-narrow-zh');
  await page.getByTestId('compare-table').scrollIntoViewIfNeeded();
  await shot(page, 'compare-preset-narrow-zh-table');
  assert.deepEqual(narrow.errors, []);
  await narrow.context.close();

  const wide = await open(browser, server.url + '?compare=bully,raft,invitation,bully-failover&preset=split-brain-bully&time=40&lang=zh');
  assert.equal(await wide.page.locator('section.lane').count(), 4);
  const top = await Promise.all([1, 2, 3, 4].map((k) => lane(wide.page, k).boundingBox()));
  assert.ok(top.every((b) => Math.abs(b.y - top[0].y) < 1), 'four lanes side by side on a wide screen');
  await wide.page.keyboard.press('?');
  assert.match(await wide.page.getByRole('dialog').innerText(), /V\s+并排对比算法/);
  await wide.page.keyboard.press('Escape');
  await shot(wide.page, 'compare-four-lanes-zh');
  assert.deepEqual(wide.errors, []);
  await wide.context.close();

  const embed = await open(browser, server.url + '?compare=bully,raft&t=1.N4IgZg9gTgtghgFxALhAUwDZoMYIJYQB2AtBnAEbEJRzZoD0ATCADQh6EJpQBuanBQgGcUAbVAYOaEclGjGAVgAMLAIwqAnBpUA2ZQF19bAA5wo-fETGjVLRkdEBmFgBYWCw2yFdjKR7ZB8GDQUVRcAXxZQbBohAAsUBS8fUKUAdjYgkORHR3CjECE6QjMCFFA4DABzaDwEOJgUEHIAVwwMAE9WEDi0MwRyPoQZUA4uXkqURky8YIgWpGR1SPZCOrxKgH0sOAATbkS2QjQEAHdoAGty8DxIFGoWtDYyLkJsLtlbVQKMCCEZJQAOiUK0IEH2MhsdhYzjcHhMZjgMBGKyKvV2bWyogKQjQaF2KBcimSEF8yFA8AAHptvGhjDJ1EomUy2FTNlk_EzwtygA&time=61&embed=1', { width: 640, height: 640 });
  assert.equal(await embed.page.locator('section.lane').count(), 2);
  assert.equal(await embed.page.getByRole('button', { name: 'Step forward' }).count(), 1);
  assert.equal(await embed.page.getByTestId('compare').count(), 0, 'an embed has no header');
  assert.equal(await time(embed.page), 61);
  assert.match(await embed.page.locator('.open-full').getAttribute('href'), /compare=bully,raft/);
  await shot(embed.page, 'compare-embed');
  assert.deepEqual(embed.errors, []);
  await embed.context.close();
});
