// Lessons in the page: a student walks the Bully lesson (a wrong guess shows the explanation, a
// right one proceeds, an act stop waits until the leader is crashed), the Chinese captions, the
// lesson embedded in a 640×420 iframe with its events, and the single offline file from file://.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, open, shot, offlineFileUrl } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const CJK = /[\u4e00-\u9fff]/;
const bully = JSON.parse(await readFile(new URL('../../../crate/lessons/01-bully.json', import.meta.url), 'utf8'));
const caption = (p) => p.getByTestId('lesson-caption').textContent();
const verdict = (p) => p.getByTestId('lesson-verdict').textContent();
/** On to the next stop, at once (the test does not wait for the animation). */
async function next(p, k) {
  await p.getByTestId('lesson-continue').click();
  // "Jump there" is clicked on the element itself, not at its place on screen: the stop may
  // arrive meanwhile and put an answer button where the jump button was.
  await p.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
  await p.locator(`[data-testid="lesson"][data-stop="${k}"] [data-testid="lesson-caption"]`).waitFor();
}

test('a student walks the Bully lesson: wrong and right answers, an act that waits for the crash', async () => {
  const { page, errors } = await open(browser, server.url + '?lesson=bully&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  assert.equal(await caption(page), bully.stops[0].caption.en);
  await shot(page, 'lesson-en-node-question');
  // Stop 1: click the node that will lead. N3 is wrong: the explanation is shown with the answer.
  await page.locator('[data-node="3"]').click();
  assert.match(await verdict(page), /Not quite.*N3.*N7/);
  assert.equal(await page.getByTestId('lesson-explain').textContent(), bully.stops[0].question.explain.en);
  assert.equal(await page.locator('[data-node="3"]').getAttribute('data-status'), 'up', 'the answer click crashed nothing');
  await shot(page, 'lesson-en-wrong');
  // Stop 2: a number, right this time; the lesson proceeds.
  await next(page, 1);
  await page.getByTestId('lesson-number').fill('55');
  await page.getByTestId('lesson-check').click();
  assert.match(await verdict(page), /Right/);
  await shot(page, 'lesson-en-number-right');
  // Stop 3: choices, at the breakpoint where N2 receives N1's ELECTION.
  await next(page, 2);
  assert.equal(await page.getByTestId('lesson-choice').count(), 3);
  await shot(page, 'lesson-en-choice');
  await page.getByTestId('lesson-choice').filter({ hasText: /^ELECTION$/ }).click();
  assert.match(await verdict(page), /Right/);
  // Stops 4 and 5: the counts at N = 1000, computed by running it.
  await next(page, 3);
  await page.getByTestId('lesson-number').fill('499500');
  await page.getByTestId('lesson-check').click();
  assert.match(await verdict(page), /Right/);
  await next(page, 4);
  await page.getByTestId('lesson-number').fill('998,999');
  await page.getByTestId('lesson-check').click();
  assert.match(await verdict(page), /Right/);
  // Stop 6: crash the leader. The lesson waits: stepping on does not satisfy it.
  await next(page, 5);
  assert.equal(await page.getByTestId('lesson-act').textContent(), bully.stops[5].act.prompt.en);
  await shot(page, 'lesson-en-act');
  await page.getByRole('button', { name: 'Step forward' }).click();
  assert.equal(await page.getByTestId('lesson-act-met').count(), 0, 'still waiting after a step');
  assert.equal(await page.getByTestId('lesson-continue').count(), 0, 'no way on before the act');
  await page.locator('[data-node="7"]').click();
  await page.getByTestId('lesson-act-met').waitFor();
  assert.equal(await page.locator('[data-node="7"]').getAttribute('data-status'), 'crashed');
  // Stop 7: start an election at N1, here with "Show me"; the run plays until it shows it.
  await next(page, 6);
  await page.getByTestId('lesson-show-me').click();
  await page.getByTestId('lesson-act-met').waitFor({ timeout: 60000 });
  // Stop 8: who leads now? N6.
  await next(page, 7);
  await page.locator('[data-node="6"]').click();
  assert.match(await verdict(page), /Right/);
  // Stop 9: the end of the run shows the prediction come true: N6 drawn as the leader.
  await next(page, 8);
  assert.equal(await caption(page), bully.stops[8].caption.en);
  assert.equal(await page.locator('[data-node="6"]').getAttribute('data-role'), 'leader');
  await page.getByTestId('lesson-continue').click();
  await page.getByTestId('lesson-done').waitFor();
  // Free play is one click away, and the lesson resumes.
  await page.getByTestId('lesson-free').click();
  await page.getByTestId('lesson-resume').click();
  await page.getByTestId('lesson-done').waitFor();
  // The course list shows it done; progress can be reset.
  await page.getByTestId('lessons').click();
  assert.match(await page.getByTestId('course-list').textContent(), /done/);
  await page.getByTestId('reset-progress').click();
  assert.doesNotMatch(await page.getByTestId('course-list').textContent(), /done/);
  assert.deepEqual(errors, []);
});

test('the lesson in Chinese shows the Chinese captions and questions', async () => {
  const { page, errors } = await open(browser, server.url + '?lesson=bully&lang=zh');
  await page.getByTestId('lesson-caption').waitFor();
  assert.equal(await caption(page), bully.stops[0].caption.zh);
  assert.equal(await page.getByTestId('lesson-prompt').textContent(), bully.stops[0].question.prompt.zh);
  await page.locator('[data-node="7"]').click();
  assert.match(await verdict(page), /正确/);
  assert.match(await page.getByTestId('lesson-explain').textContent(), CJK);
  await shot(page, 'lesson-zh-right');
  await next(page, 1);
  await page.getByTestId('lesson-number').fill('3');
  await page.getByTestId('lesson-check').click();
  assert.match(await verdict(page), /不对/);
  await shot(page, 'lesson-zh-wrong');
  assert.deepEqual(errors, []);
});

test('an embedded lesson works in a 640×420 iframe and tells its host', async () => {
  const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.setContent(`<script>window.heard = []; addEventListener('message', (e) => { if (e.data && e.data.lesson) heard.push(e.data); });</script>
    <iframe src="${server.url}?lesson=bully&embed=1&lang=en" width="640" height="420" style="border:0"></iframe>`);
  const frame = page.frameLocator('iframe');
  await frame.getByTestId('lesson-caption').waitFor();
  const box = await page.locator('iframe').boundingBox();
  const node = await frame.locator('[data-node="7"]').boundingBox();
  assert.ok(node.y + node.height <= box.y + box.height && node.y >= box.y, 'the node is inside the frame');
  await frame.locator('[data-node="7"]').click();
  assert.match(await frame.getByTestId('lesson-verdict').textContent(), /Right/);
  const verdictBox = await frame.getByTestId('lesson-verdict').boundingBox();
  assert.ok(verdictBox.y + verdictBox.height <= box.y + box.height + 1, 'the verdict is visible in the frame');
  await shot(page, 'lesson-embed');
  await page.waitForFunction(() => heard.some((m) => m.event === 'answer'));
  const heard = await page.evaluate(() => heard);
  assert.ok(heard.some((m) => m.event === 'stop' && m.stop === 0 && m.lesson === 'bully'));
  assert.ok(heard.some((m) => m.event === 'answer' && m.given === 'N7' && m.right === true));
  assert.deepEqual(errors, []);
  await context.close();
});

/** Whether the element is wholly inside the iframe's 640×420 box (no scrolling needed). */
async function inFrame(page, locator) {
  const frame = await page.locator('iframe').boundingBox();
  const b = await locator.boundingBox();
  return b && b.y >= frame.y - 0.5 && b.y + b.height <= frame.y + frame.height + 0.5 && b.x >= frame.x - 0.5 && b.x + b.width <= frame.x + frame.width + 0.5;
}

test('an embedded lesson keeps its answer controls and Continue in view at 640×420, in English and Chinese', async () => {
  for (const lang of ['en', 'zh']) {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 } });
    const page = await context.newPage();
    await page.setContent(`<iframe src="${server.url}?lesson=bully&embed=1&lang=${lang}" width="640" height="420" style="border:0"></iframe>`);
    const frame = page.frameLocator('iframe');
    await frame.getByTestId('lesson-caption').waitFor();
    if (lang === 'zh') await page.frames()[1].waitForFunction(() => document.documentElement.lang === 'zh-CN');
    // Stop 1: click a node (or Nobody); then the verdict, its explanation and Continue.
    assert.ok(await inFrame(page, frame.getByTestId('lesson-ask-node').locator('button')), `${lang}: Nobody in view`);
    await frame.locator('[data-node="3"]').click();
    await frame.getByTestId('lesson-verdict').waitFor();
    assert.ok(await inFrame(page, frame.getByTestId('lesson-continue')), `${lang}: Continue in view after the longest explanation`);
    await shot(page, `lesson-embed-${lang}-verdict`);
    // Stop 2: the number, then Continue again.
    await frame.getByTestId('lesson-continue').click();
    await frame.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
    await frame.locator('[data-testid="lesson"][data-stop="1"] [data-testid="lesson-caption"]').waitFor();
    assert.ok(await inFrame(page, frame.getByTestId('lesson-check')), `${lang}: the number's Check in view`);
    await frame.getByTestId('lesson-number').fill('55');
    await frame.getByTestId('lesson-check').click();
    await frame.getByTestId('lesson-verdict').waitFor();
    assert.ok(await inFrame(page, frame.getByTestId('lesson-continue')), `${lang}: Continue in view at stop 2`);
    await shot(page, `lesson-embed-${lang}-number`);
    await context.close();
  }
});

test('at 1280×860 the header keeps to two rows of buttons and the step controls are on the first screen', async () => {
  for (const lang of ['en', 'zh']) {
    const { page, errors, context } = await open(browser, server.url + `?lesson=bully&lang=${lang}`);
    await page.getByTestId('lesson-caption').waitFor();
    const rows = await page.locator('header.top').evaluate((h) => {
      const shown = [...h.querySelectorAll('button, select, summary')].filter((b) => b.checkVisibility({ visibilityProperty: true }));
      const tops = shown.map((b) => b.getBoundingClientRect()).filter((r) => r.height > 0).map((r) => r.top);
      return tops.sort((a, b) => a - b).reduce((rs, y) => (rs.length && y - rs[rs.length - 1] < 16 ? rs : [...rs, y]), []).length;
    });
    assert.ok(rows <= 2, `${lang}: ${rows} rows of buttons in the header`);
    const step = await page.getByRole('button', { name: lang === 'zh' ? '前进一步' : 'Step forward' }).boundingBox();
    assert.ok(step.y >= 0 && step.y + step.height <= 860, `${lang}: Step forward at ${step.y}–${step.y + step.height}, not on the first screen`);
    assert.equal(await page.evaluate(() => scrollY), 0);
    await shot(page, `lesson-header-${lang}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the single offline file runs a lesson opened from file://', async () => {
  const url = await offlineFileUrl();
  const { page, errors } = await open(browser, url + '?lesson=bully&lang=en');
  await page.getByTestId('lesson-caption').waitFor();
  assert.equal(await caption(page), bully.stops[0].caption.en);
  await page.locator('[data-node="7"]').click();
  assert.match(await verdict(page), /Right/);
  await next(page, 1);
  assert.equal(await caption(page), bully.stops[1].caption.en);
  assert.deepEqual(errors, []);
});

test('a lesson recorded in the page, exported and reopened from its link shows the same stops', async () => {
  const { page, errors } = await open(browser, server.url + '?preset=bully-worst-8&lang=en');
  await page.getByTestId('record').click();
  await page.getByTestId('rec-title-en').fill('Recorded in class');
  await page.getByTestId('rec-title-zh').fill('课堂上录制的课程');
  await page.getByTestId('rec-caption-en').fill('Before anything happens.');
  await page.getByTestId('rec-caption-zh').fill('一切发生之前。');
  await page.getByTestId('rec-add').click();
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Step forward' }).click();
  await page.getByTestId('rec-caption-en').fill('Three steps in.');
  await page.getByTestId('rec-caption-zh').fill('走了三步。');
  await page.getByTestId('rec-check').selectOption('leader_at');
  assert.match(await page.getByTestId('rec-value').textContent(), /N7/, 'the engine\'s answer is shown while recording');
  await page.getByTestId('rec-prompt-en').fill('Who will lead?');
  await page.getByTestId('rec-prompt-zh').fill('谁会成为领导者？');
  await page.getByTestId('rec-explain-en').fill('The highest live id.');
  await page.getByTestId('rec-explain-zh').fill('存活的最大 id。');
  await page.getByTestId('rec-add').click();
  assert.equal(await page.getByTestId('rec-stops').locator('li').count(), 2);
  await page.getByTestId('rec-export').click();
  const link = await page.getByTestId('rec-link').inputValue();
  assert.match(link, /\?lesson=1\./);
  assert.match(await page.getByTestId('rec-embed').inputValue(), /<iframe src=".*lesson=1\..*embed=1/);
  await shot(page, 'lesson-recorder');
  const again = await open(browser, link);
  await again.page.getByTestId('lesson-caption').waitFor();
  assert.equal(await caption(again.page), 'Before anything happens.');
  assert.match(await again.page.getByTestId('lesson-pos').textContent(), /1 \/ 2/);
  await next(again.page, 1);
  assert.equal(await caption(again.page), 'Three steps in.');
  assert.equal(await again.page.getByTestId('step').textContent(), '3');
  await again.page.locator('[data-node="7"]').click();
  assert.match(await verdict(again.page), /Right/);
  assert.deepEqual([...errors, ...again.errors], []);
});
