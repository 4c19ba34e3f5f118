// The lecturer's notes window: from the presenter view (?present=1), the notes button (or N)
// opens notes.html in a second window, which shows the current stop's caption and question, the
// expected answer, the lecturer's notes and the next stop, kept in step with the presenter over a
// BroadcastChannel: on Continue, on a language switch, and for a window opened after the presenter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, open, shot, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const bully = JSON.parse(await readFile(new URL('../../../crate/lessons/01-bully.json', import.meta.url), 'utf8'));

/** Waits until the notes window's field `name` reads `text`. */
const shows = (notes, name, text) => notes.waitForFunction(
  ([n, t]) => document.querySelector(`[data-notes="${n}"]`)?.textContent === t, [name, text]);

test('the notes window follows the presenter: stop, answer, notes, next stop; both languages; axe-core clean', async () => {
  const { page, errors, context } = await open(browser, server.url + '?lesson=bully&present=1&lang=en', { width: 1280, height: 800 });
  await page.getByTestId('lesson-caption').waitFor();
  const [notes] = await Promise.all([context.waitForEvent('page'), page.getByTestId('present-notes').click()]);
  const notesErrors = [];
  notes.on('pageerror', (e) => notesErrors.push(String(e)));
  await notes.waitForLoadState();
  const [first, second, third] = bully.stops;
  await shows(notes, 'caption', first.caption.en);
  await shows(notes, 'notes', first.notes.en);
  await shows(notes, 'question', first.question.prompt.en);
  await shows(notes, 'next', second.caption.en);
  assert.equal(await notes.locator('[data-notes="stop"]').textContent(), `Stop 1 of ${bully.stops.length}`);
  // The expected answer is the run's: the one the presenter's verdict shows once a student answers.
  const expected = await notes.locator('[data-notes="answer"]').textContent();
  assert.match(expected, /^N\d+$/);
  await page.locator('[data-node]').first().click();
  assert.equal(await page.getByTestId('lesson-verdict').locator('b').textContent(), expected);
  await shot(notes, 'notes-window-stop1');
  const found = await axe(notes);
  assert.deepEqual(found, [], found.join('\n'));

  // Continue: the notes window moves on with the presenter.
  await page.getByTestId('lesson-continue').click();
  await shows(notes, 'caption', second.caption.en);
  await shows(notes, 'next', third.caption.en);
  await shows(notes, 'notes', second.notes.en);

  // A window opened after the presenter gets the stop at once (it says hello, the presenter answers).
  const late = await context.newPage();
  await late.goto(server.url + 'notes.html');
  await shows(late, 'caption', second.caption.en);

  // The presenter switches to Chinese: the notes follow, labels included.
  await page.keyboard.press('l');
  await shows(notes, 'caption', second.caption.zh);
  await shows(notes, 'notes', second.notes.zh);
  assert.equal(await notes.evaluate(() => document.documentElement.lang), 'zh');
  assert.notEqual(await notes.locator('[data-label="answer"]').textContent(), 'Expected answer');
  await shot(notes, 'notes-window-zh');

  // N opens (or brings forward) the same window rather than a new one.
  const pages = context.pages().length;
  await page.keyboard.press('n');
  await shows(notes, 'caption', second.caption.zh);
  assert.equal(context.pages().length, pages, 'one notes window');
  assert.deepEqual(errors, []);
  assert.deepEqual(notesErrors, []);
  await context.close();
});
