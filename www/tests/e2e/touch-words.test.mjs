// A lesson's words on a touch screen: on a 375 px phone with touch, the Bully lesson's question
// says "Tap" (中文 轻触) where a mouse's page says "Click" (点击), in both languages.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

const bully = JSON.parse(await readFile(new URL('../../../crate/lessons/01-bully.json', import.meta.url), 'utf8'));
const PHONE = { width: 375, height: 667 };
const TOUCH = { hasTouch: true, isMobile: true, deviceScaleFactor: 2 };

for (const lang of ['en', 'zh']) {
  test(`the lesson's prompt names taps on a touch phone and clicks with a mouse (${lang})`, async () => {
    const written = bully.stops[0].question.prompt[lang];
    const [mouseWord, touchWord] = lang === 'en' ? [/\bclick/i, /\btap\b/i] : [/点击/, /轻触/];
    assert.match(written, mouseWord, 'the lesson is written for a mouse');

    const phone = await open(browser, `${server.url}?lesson=bully&lang=${lang}`, PHONE, TOUCH);
    const prompt = phone.page.getByTestId('lesson-prompt');
    await prompt.waitFor();
    const said = await prompt.textContent();
    assert.match(said, touchWord, said);
    assert.doesNotMatch(said, mouseWord, said);
    await shot(phone.page, `touch-words-375-${lang}`);
    assert.deepEqual(phone.errors, []);
    await phone.context.close();

    const desk = await open(browser, `${server.url}?lesson=bully&lang=${lang}`);
    await desk.page.getByTestId('lesson-prompt').waitFor();
    assert.equal(await desk.page.getByTestId('lesson-prompt').textContent(), written, 'a mouse reads the lesson as written');
    assert.deepEqual(desk.errors, []);
    await desk.context.close();
  });
}
