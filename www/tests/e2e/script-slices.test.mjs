// A slow script in a fork (issue 26): a lane whose script takes many operations a message is
// computed in slices, saying "Computing this lane…", while the page answers (the language
// switch); once computed, both futures stand at the fork's time, the crash only in the new one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** Opens the editor on bully-worst-8, runs the Bully template slowed down (every message
 * costs its handler a long loop) and returns the link's `script=` value. */
async function slowScript(page) {
  await page.locator('.scenario-bar select').first().selectOption('__script__');
  await page.getByTestId('script-editor').waitFor();
  const template = await page.getByTestId('script-source').inputValue();
  const slow = template.replace('fn on_message(from, msg) {', 'fn on_message(from, msg) {\n    let i = 0;\n    while i < 150000 { i += 1; }');
  assert.notEqual(slow, template);
  await page.getByTestId('script-source').fill(slow);
  await page.getByTestId('script-run').click();
  await page.waitForFunction(() => /[?&]script=/.test(location.search));
  return new URLSearchParams(await page.evaluate(() => location.search)).get('script');
}

/** While a lane computes, the language switch takes effect, the lane's status with it. */
async function answersMeanwhile(page) {
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=lane-computing]')].some((p) => /正在计算/.test(p.textContent)));
  await page.getByTestId('lang').click();
  await page.waitForFunction(() => document.documentElement.lang === 'en');
}

test('a fork of a slow script\'s run rebuilds both futures in slices while the page answers', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-worst-8');
  await slowScript(page);
  const status = page.locator('p.computing');
  // The whole run, then back to step 6 where N3 is crashed: a future already seen is kept.
  await page.keyboard.press('End');
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=step]')?.textContent) > 8, null, { timeout: 120000 });
  await status.waitFor({ state: 'detached', timeout: 120000 });
  await page.locator('.timeline input[type=range]').fill('6');
  await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '6', null, { timeout: 120000 });
  await page.locator('[data-node="3"] .disc').click();
  await page.getByTestId('fork-offer').waitFor();
  await page.getByTestId('fork').click();
  const lanes = page.locator('section.lane');
  await lanes.nth(1).waitFor();
  await page.getByTestId('lane-computing').first().waitFor();
  await answersMeanwhile(page);
  await page.getByTestId('lane-computing').first().waitFor({ state: 'detached', timeout: 120000 });
  assert.deepEqual(await lanes.evaluateAll((ls) => ls.map((l) => l.dataset.role)), ['OldFuture', 'NewFuture']);
  // Both at the time the fork was made: the crash only in the new future.
  await page.waitForFunction(() => document.querySelector('section.lane[data-role=NewFuture] [data-node="3"]')?.dataset.status === 'crashed');
  assert.notEqual(await page.locator('section.lane[data-role=OldFuture] [data-node="3"]').getAttribute('data-status'), 'crashed');
  assert.deepEqual(errors, []);
  await context.close();
});
