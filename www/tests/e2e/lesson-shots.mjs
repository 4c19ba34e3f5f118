// Walks every built-in lesson stop by stop, in English and in Chinese, and screenshots each stop
// (after its question is answered, or its act shown) into screenshots/lessons/, for a person to
// look at: wrong wording, captions that contradict the drawing, English on the Chinese page,
// cut-off text, overlapping panels. Not a test (it asserts nothing); it prints what it can
// notice by itself: Latin words in the Chinese panel, panel text cut off or overflowing.
//
//   cd www && node tests/e2e/lesson-shots.mjs [--embed] [--lang=en|zh] [lesson ids…]
//
// --embed walks them in a 640×420 iframe (the embed) instead of the 1280×860 page.
import { readFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { serve, launch, SHOTS } from './harness.mjs';

const args = process.argv.slice(2);
const embed = args.includes('--embed');
const langs = args.find((a) => a.startsWith('--lang='))?.slice(7).split(',') ?? ['en', 'zh'];
const course = JSON.parse(await readFile(new URL('../../course.json', import.meta.url), 'utf8'));
const entries = (course.lessons ?? course).filter((e) => !args.some((a) => !a.startsWith('--')) || args.includes(e.id));
const dir = join(SHOTS, 'lessons');
await mkdir(dir, { recursive: true });

const server = await serve();
const browser = await launch();

/** What the page shows that it should not: Latin words on the Chinese panel, text cut off. */
async function problems(root, lang) {
  return root.locator('[data-testid="lesson"]').evaluate((panel, lang) => {
    const out = [];
    for (const el of panel.querySelectorAll('*')) {
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'hidden') out.push(`cut off: ${el.className || el.tagName}`);
    }
    const r = panel.getBoundingClientRect();
    if (r.right > innerWidth + 1) out.push(`panel overflows the width by ${Math.round(r.right - innerWidth)} px`);
    const cont = panel.querySelector('[data-testid="lesson-continue"], .lesson-answer, [data-testid="lesson-show-me"]');
    if (cont) {
      const b = cont.getBoundingClientRect();
      if (b.bottom > innerHeight + 1 || b.top < 0) out.push(`controls outside the viewport (top ${Math.round(b.top)}, bottom ${Math.round(b.bottom)} of ${innerHeight})`);
    }
    if (lang === 'zh') {
      const text = panel.innerText;
      // Message kinds, node names and numbers are the same in both languages.
      const words = (text.match(/\b[A-Za-z][a-z]{3,}\b/g) || []).filter((w) => !/^(Raft|Paxos|Bully|Chang|Roberts|Hirschberg|Sinclair|Garcia|Molina|Ongaro|Ousterhout|Lamport|Lynch|Fischer|Paterson|Gossip|ZooKeeper|Keeper|Zoo)$/.test(w));
      if (words.length) out.push(`Latin words on the Chinese panel: ${[...new Set(words)].join(' ')}`);
    }
    return out;
  }, lang);
}

for (const lang of langs) {
  for (const e of entries) {
    const context = await browser.newContext({ viewport: embed ? { width: 700, height: 480 } : { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (x) => errors.push(String(x)));
    const url = `${server.url}?lesson=${e.id}&lang=${lang}${embed ? '&embed=1' : ''}`;
    let root = page;
    if (embed) {
      await page.setContent(`<iframe src="${url}" width="640" height="420" style="border:0"></iframe>`);
      root = page.frameLocator('iframe');
    } else {
      await page.goto(url);
    }
    await root.locator('[data-testid="lesson-caption"]').first().waitFor({ timeout: 60000 });
    if (lang === 'zh') await (embed ? page.frames()[1] : page).waitForFunction(() => document.documentElement.lang === 'zh-CN');
    const lesson = JSON.parse(await readFile(new URL(`../../../crate/lessons/${e.file}`, import.meta.url), 'utf8'));
    for (let k = 0; k <= lesson.stops.length; k++) {
      const panel = root.locator(`[data-testid="lesson"][data-stop="${k}"]`);
      await panel.waitFor({ timeout: 120000 });
      const stop = lesson.stops[k];
      const name = `${e.id}-${lang}${embed ? '-embed' : ''}-${String(k).padStart(2, '0')}`;
      if (stop?.question) {
        await root.locator('[data-testid="lesson-prompt"]').waitFor();
        const shotAsk = join(dir, `${name}a-ask.png`);
        await page.screenshot({ path: shotAsk });
        // Any answer: the verdict shows the engine's.
        const kind = stop.question.check;
        if (kind === 'leader_at') await root.locator('[data-testid="lesson-ask-node"] button').click();
        else if (kind === 'next_delivery_kind') await root.locator('[data-testid="lesson-choice"]').first().click();
        else if (['minority_elects', 'violated', 'elected'].includes(kind)) await root.locator('[data-testid="lesson-yes"]').click();
        else {
          await root.locator('[data-testid="lesson-number"]').fill('1');
          await root.locator('[data-testid="lesson-check"]').click();
        }
        await root.locator('[data-testid="lesson-verdict"]').waitFor({ timeout: 120000 });
      } else if (stop?.act) {
        await root.locator('[data-testid="lesson-show-me"]').click();
        await root.locator('[data-testid="lesson-act-met"]').waitFor({ timeout: 120000 });
      }
      await page.screenshot({ path: join(dir, `${name}.png`) });
      const text = (await panel.innerText()).replace(/\s+/g, ' ');
      const found = await problems(root, lang);
      console.log(`${name}: ${found.length ? found.join('; ') : 'ok'}\n    ${text.slice(0, 400)}`);
      if (k === lesson.stops.length) break;
      await root.locator('[data-testid="lesson-continue"]').click();
      await root.locator('[data-testid="lesson-skip"]').evaluate((b) => b.click(), null, { timeout: 300 }).catch(() => {});
    }
    if (errors.length) console.log(`${e.id} ${lang}: page errors ${errors.join(' | ')}`);
    await context.close();
  }
}
await browser.close();
await server.close();
