// The lecture hall: number answers graded as a teacher grades them (21.7 is 21.7, 130 is near
// enough to the mean, the accepted range is shown), lessons that neither offer a fork nor list
// the events to come, stops that show what they talk about (Bully's crashed N8, the leases'
// overlap and rejected writes), agreement during an election as a neutral state, and the
// leftovers of English on Chinese pages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const verdict = (p) => p.getByTestId('lesson-verdict').textContent();

/** On to stop `k`, at once (as lessons.test.mjs does). */
async function next(p, k) {
  await p.getByTestId('lesson-continue').click();
  await p.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
  await p.locator(`[data-testid="lesson"][data-stop="${k}"] [data-testid="lesson-caption"]`).waitFor();
}

async function number(p, text) {
  await p.getByTestId('lesson-number').fill(text);
  await p.getByTestId('lesson-check').click();
  await p.getByTestId('lesson-verdict').waitFor();
}

/** No fork offer, and no step after the cursor in the event log. */
async function walked(p, where) {
  assert.equal(await p.getByTestId('fork-offer').count(), 0, `${where}: no fork banner during a lesson`);
  assert.equal(await p.locator('.log li.future').count(), 0, `${where}: the log lists no future step`);
}

test('Chang-Roberts: 21.7 is read as 21.7, 130 is accepted against the mean, and the range is shown', async () => {
  for (const [lang, first, second, right] of [['en', '21.7', '130', /Right/], ['zh', '２１，７', '130', /正确/]]) {
    const { page, errors } = await open(browser, server.url + `?lesson=chang-roberts&lang=${lang}`);
    await page.getByTestId('lesson-caption').waitFor();
    await page.locator('[data-node="8"]').click();
    await next(page, 1);
    await number(page, '36');
    await next(page, 2);
    await page.getByTestId('lesson-choice').filter({ hasText: /^ELECTION$/ }).click();
    await next(page, 3);
    await number(page, first);
    assert.match(await verdict(page), right, `${lang}: ${first} at N = 8`);
    const range = await page.getByTestId('lesson-range').textContent();
    assert.match(range, lang === 'en' ? /exact value is 2[12](\.\d+)?; accepted from 2\d(\.\d+)? to 2\d(\.\d+)? \(±5 %\)/ : /精确值为 2[12]/, range);
    await shot(page, `lecture-${lang}-number-range`);
    for (const [w, h] of [[375, 667], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.getByTestId('lesson-range').scrollIntoViewIfNeeded();
      await shot(page, `lecture-${lang}-number-range-${w}`);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await next(page, 4);
    await number(page, second);
    assert.match(await verdict(page), right, `${lang}: 130 at N = 32`);
    await walked(page, `chang-roberts ${lang}`);
    assert.deepEqual(errors, []);
    await page.context().close();
  }
});

test('a number the page cannot read is refused by name, and a far answer is wrong', async () => {
  const { page } = await open(browser, server.url + '?lesson=bully&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  await page.locator('[data-node="7"]').click();
  await next(page, 1);
  await page.getByTestId('lesson-number').fill('fifty-five');
  await page.getByTestId('lesson-check').click();
  const message = await page.getByTestId('lesson-number').evaluate((i) => i.validationMessage);
  assert.match(message, /Type one number/);
  assert.equal(await page.getByTestId('lesson-verdict').count(), 0, 'nothing judged');
  await number(page, '54');
  assert.match(await verdict(page), /Not quite/, 'an exact count stays exact');
  assert.equal(await page.getByTestId('lesson-range').count(), 0, 'an exact question shows no range');
  await page.context().close();
});

test('Bully: the first stop shows N8 crashed; acting neither offers a fork nor shows the future', async () => {
  const { page, errors } = await open(browser, server.url + '?lesson=bully&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  assert.match(await page.getByTestId('lesson-caption').textContent(), /N8 has just crashed/);
  assert.equal(await page.locator('[data-node="8"]').getAttribute('data-status'), 'crashed', 'N8 drawn crashed at stop 1');
  assert.doesNotMatch(await page.locator('.scenario-bar select').first().locator('option:checked').textContent(), /custom/);
  await walked(page, 'stop 1');
  await page.locator('[data-node="7"]').click();
  await next(page, 1); await number(page, '55');
  await next(page, 2);
  await walked(page, 'stop 3');
  await page.getByTestId('lesson-choice').filter({ hasText: /^ELECTION$/ }).click();
  await next(page, 3); await number(page, '499500');
  await next(page, 4); await number(page, '998999');
  await next(page, 5);
  await page.getByTestId('lesson-show-me').click();
  await page.getByTestId('lesson-act-met').waitFor();
  await walked(page, 'after the crash act');
  await next(page, 6);
  await page.getByTestId('lesson-show-me').click();
  await page.getByTestId('lesson-act-met').waitFor();
  await walked(page, 'after the start act');
  await shot(page, 'lecture-bully-after-act');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('leases: the overlap is on the canvas when asked about, and the rejected writes before the end', async () => {
  const { page, errors } = await open(browser, server.url + '?lesson=leases&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  await next(page, 1);
  await page.getByTestId('lesson-show-me').click();
  await page.getByTestId('lesson-act-met').waitFor();
  await next(page, 2);
  await page.getByTestId('lesson-yes').click();
  await next(page, 3);
  // Two holders drawn, and the invariants panel marks the overlap.
  assert.equal(await page.locator('[data-node][data-role="leader"]').count(), 2, 'two holders at the stop that asks');
  assert.equal(await page.locator('.invariants li[data-property="lease-overlap"].bad').count(), 1);
  await shot(page, 'lecture-leases-overlap');
  await number(page, '2');
  assert.match(await verdict(page), /Right/);
  await next(page, 4);
  await page.getByTestId('lesson-number').fill('1');
  await page.getByTestId('lesson-check').click();
  await next(page, 5);
  const rejected = Number(await page.getByTestId('store').getAttribute('data-rejected'));
  assert.ok(rejected >= 1, `the store shows ${rejected} rejected writes at the last stop`);
  await walked(page, 'leases');
  await shot(page, 'lecture-leases-rejected');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('an election in progress is a neutral state, in both languages; red is for a broken claim', async () => {
  for (const [lang, word] of [['en', /^electing… since t = \d+/], ['zh', /^选举中……自 t = \d+/]]) {
    const { page } = await open(browser, server.url + `?preset=bully-worst-8&step=3&lang=${lang}`);
    const row = page.locator('.invariants li[data-property="agreement"]');
    assert.equal(await row.getAttribute('class'), 'electing');
    assert.match((await row.textContent()).replace(/^…/, '').replace(/^[^\p{L}]*/u, '').replace(/^(Agreement|一致)\s*/u, ''), word);
    assert.equal(await page.locator('.invariants li.bad').count(), 0, 'nothing red: no claim is broken');
    await page.getByTestId('invariants-key').waitFor();
    await shot(page, `lecture-${lang}-electing`);
    for (const [w, h] of [[375, 667], [1920, 1080]]) {
      await page.setViewportSize({ width: w, height: h });
      await row.scrollIntoViewIfNeeded();
      await shot(page, `lecture-${lang}-electing-${w}`);
    }
    await page.context().close();
  }
});

test('a Chinese page words the speed menu in Chinese', async () => {
  const { page } = await open(browser, server.url + '?preset=raft&step=2&lang=zh');
  const speeds = await page.locator('select option').allTextContents();
  assert.ok(speeds.some((s) => /每秒 30 个时间单位/.test(s)), speeds.join(' | '));
  assert.ok(!speeds.some((s) => /tick/.test(s)), speeds.join(' | '));
  await page.context().close();
});

test('Raft: the Pre-vote switch replays the same run at the same step with pre-votes, and back', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=raft-cold&step=40&lang=en');
  const button = page.getByTestId('pre-vote');
  assert.equal(await button.getAttribute('aria-pressed'), 'false');
  assert.match(await button.textContent(), /Pre-vote: off/);
  await button.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="pre-vote"]')?.getAttribute('aria-pressed') === 'true');
  assert.equal(await page.getByTestId('step').textContent(), '40', 'the same step');
  await button.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="pre-vote"]')?.getAttribute('aria-pressed') === 'false');
  assert.deepEqual(errors, []);
  await page.context().close();
});
