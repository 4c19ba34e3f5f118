// SCORM: the Bully lesson packaged by scripts/scorm.mjs and run in a test LMS whose run-time is
// scorm-again (the SCORM API that LMS integrations use): a host page creates `window.API`
// (SCORM 1.2) or `window.API_1484_11` (SCORM 2004) and frames the package's launch page, taken
// from the unzipped package. A student walks the lesson and gets one question wrong, every other
// one right; the LMS must record the lesson completed with the score that makes (with 5
// questions, 4 right: 80). The right answers are the engine's own: a second page (another
// browser context, so another student) walks the same lesson beside the student and reads each
// answer from its verdict, which always shows the run's answer.
import { test, before, after } from 'node:test';
import { createRequire } from 'node:module';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { serve, launch, open, DIST } from './harness.mjs';
import { buildPackages } from '../../../scripts/scorm.mjs';
import { unzip } from '../../../scripts/zip.mjs';

const bully = JSON.parse(await readFile(new URL('../../../crate/lessons/01-bully.json', import.meta.url), 'utf8'));
const QUESTIONS = bully.stops.filter((s) => s.question).length;
/** The question the student gets wrong: the first. */
const WRONG = bully.stops.findIndex((s) => s.question);
/** The score the LMS should record: the share of questions answered right, in percent. */
const SCORE = Math.round((10000 * (QUESTIONS - 1)) / QUESTIONS) / 100;

let server, lms, browser, packages;
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.json': 'application/json', '.xml': 'application/xml' };

/** The test LMS: its host page, scorm-again, and the unzipped packages under /<version>/. */
async function serveLms(files) {
  const s = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const body = files[path];
    if (!body) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(path)] || 'application/octet-stream' });
    res.end(body);
  });
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${s.address().port}/`, close: () => new Promise((ok) => s.close(ok)) };
}

before(async () => {
  server = await serve();
  browser = await launch();
  packages = await buildPackages(DIST, 'bully');
  const files = {
    '/scorm-again.js': await readFile(new URL('../../node_modules/scorm-again/dist/scorm-again.js', import.meta.url)),
  };
  for (const p of packages) {
    for (const [name, data] of Object.entries(unzip(p.bytes))) files[`/${p.version}/${name}`] = data;
  }
  lms = await serveLms(files);
});
after(async () => { await browser?.close(); await server?.close(); await lms?.close(); });

test('each package is a zip with its manifest, a launch page per lesson, the offline file and the glue', () => {
  assert.deepEqual(packages.map((p) => p.file), ['election-lab-bully-scorm12.zip', 'election-lab-bully-scorm2004.zip']);
  for (const p of packages) {
    const files = unzip(p.bytes);
    assert.deepEqual(Object.keys(files).sort(), ['bully.html', 'election-lab.html', 'imsmanifest.xml', 'scorm.js', 'zh.json']);
    const manifest = files['imsmanifest.xml'].toString('utf8');
    const version = p.version === '1.2' ? '1.2' : '2004 4th Edition';
    assert.match(manifest, new RegExp(`<schemaversion>${version}</schemaversion>`));
    assert.match(manifest, p.version === '1.2' ? /adlcp:scormtype="sco" href="bully.html"/ : /adlcp:scormType="sco" href="bully.html"/);
    assert.match(manifest, p.version === '1.2' ? /xmlns="http:\/\/www.imsproject.org\/xsd\/imscp_rootv1p1p2"/ : /xmlns="http:\/\/www.imsglobal.org\/xsd\/imscp_v1p1"/);
    // Every file the manifest names is in the package.
    for (const [, href] of manifest.matchAll(/<file href="([^"]+)"\/>/g)) assert.ok(files[href], `${p.file}: ${href} is listed and present`);
  }
});

/** The kind of question on screen, once its controls are there. */
async function kind(f) {
  await f.locator('.lesson-answer').waitFor({ timeout: 120000 });
  for (const [id, k] of [['lesson-ask-node', 'node'], ['lesson-choice', 'choice'], ['lesson-yes', 'yesno'], ['lesson-number', 'number']]) {
    if (await f.getByTestId(id).count()) return k;
  }
  throw new Error('no answer controls');
}

/** Gives `answer` (the text the page shows for it); with `wrong`, an answer other than it; with
 * `null`, any answer (the teacher's, to read the run's answer from the verdict). */
async function give(f, k, answer, wrong = false) {
  if (k === 'node') {
    let m = answer === null ? [null, '1'] : /^N(\d+)$/.exec(answer);
    if (wrong) m = [null, m && m[1] === '1' ? '2' : '1'];
    if (m) await f.locator(`[data-node="${m[1]}"]`).click();
    else await f.getByTestId('lesson-ask-node').locator('button').click();
  } else if (k === 'choice') {
    const choices = await f.getByTestId('lesson-choice').allTextContents();
    const pick = answer === null ? choices[0] : wrong ? choices.find((c) => c !== answer) : answer;
    await f.getByTestId('lesson-choice').filter({ hasText: new RegExp(`^${pick}$`) }).click();
  } else if (k === 'yesno') {
    const yes = answer === null || (await f.getByTestId('lesson-yes').textContent()).trim().toLowerCase() === answer.trim().toLowerCase();
    await f.getByTestId(yes !== wrong ? 'lesson-yes' : 'lesson-no').click();
  } else {
    const n = answer === null ? 0 : Number(answer.replace(/[,\s]/g, ''));
    await f.getByTestId('lesson-number').fill(answer === null ? '0' : wrong ? String(n * 3 + 100) : answer);
    await f.getByTestId('lesson-check').click();
  }
}

/** On to stop `k` at once (see lessons.test.mjs), or to the end past the last stop. */
async function next(f, k) {
  await f.getByTestId('lesson-continue').click();
  if (k >= bully.stops.length) {
    await f.getByTestId('lesson-done').waitFor();
    return;
  }
  await f.getByTestId('lesson-skip').evaluate((b) => b.click(), null, { timeout: 500 }).catch(() => {});
  await f.locator(`[data-testid="lesson"][data-stop="${k}"] [data-testid="lesson-caption"]`).waitFor({ timeout: 60000 });
}

/** The student (`f`, in the LMS) and the teacher (`t`) walk the lesson side by side. */
async function walk(f, t) {
  for (let k = 0; k < bully.stops.length; k++) {
    const stop = bully.stops[k];
    if (stop.question) {
      const q = await kind(t);
      await give(t, q, null);
      const expected = await t.getByTestId('lesson-verdict').locator('b').textContent({ timeout: 120000 });
      assert.equal(await kind(f), q);
      await give(f, q, expected, k === WRONG);
      const verdict = f.getByTestId('lesson-verdict');
      await verdict.waitFor({ timeout: 120000 });
      assert.equal(await verdict.evaluate((e) => e.classList.contains('right')), k !== WRONG, `stop ${k + 1}`);
    }
    if (stop.act) {
      for (const p of [t, f]) {
        await p.getByTestId('lesson-show-me').click();
        await p.getByTestId('lesson-act-met').waitFor({ timeout: 60000 });
      }
    }
    await next(t, k + 1);
    await next(f, k + 1);
  }
}

/** The LMS's page: scorm-again's run-time for `version`, set up by `setup`, and the SCO framed. */
async function lmsPage(version, setup) {
  const context = await browser.newContext({ viewport: { width: 1300, height: 950 } });
  const page = await context.newPage();
  const errors = [];
  const offsite = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  // Nothing is fetched from anywhere but the LMS.
  page.on('request', (r) => { if (!/^(data|about|blob):/.test(r.url()) && !r.url().startsWith(lms.url)) offsite.push(r.url()); });
  const api = version === '1.2' ? 'window.API = new Scorm12API(settings)' : 'window.API_1484_11 = new Scorm2004API(settings)';
  await page.route(`${lms.url}lms.html`, (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><html><head><title>LMS</title><script src="/scorm-again.js"></script><script>
      const settings = { autocommit: false, lmsCommitUrl: false, logLevel: 4 };
      ${api};
      window.lmsApi = ${version === '1.2' ? 'window.API' : 'window.API_1484_11'};
      window.finished = false;
      lmsApi.on('${version === '1.2' ? 'LMSFinish' : 'Terminate'}', () => { window.finished = true; });
      // What the SCO set, for the write-only elements (the session's time).
      window.sets = {};
      lmsApi.on('${version === '1.2' ? 'LMSSetValue' : 'SetValue'}.cmi.*', (element, value) => { window.sets[element] = value; });
      ${setup}
    </script></head><body><iframe id="sco" src="/${version}/bully.html" style="border:0;width:1280px;height:900px"></iframe></body></html>`,
  }));
  await page.goto(`${lms.url}lms.html`);
  const f = page.frameLocator('#sco').frameLocator('#lab');
  await f.getByTestId('lesson-caption').waitFor({ timeout: 60000 });
  return { page, context, f, errors, offsite };
}

test('SCORM 1.2: the LMS records the Bully lesson completed, scored as the share answered right (one wrong of N: 100·(N−1)/N, 4 of 5 is 80)', async () => {
  const { page, context, f, errors, offsite } = await lmsPage('1.2', '');
  const teacher = await open(browser, server.url + '?lesson=bully&lang=en');
  assert.equal(await f.getByTestId('lesson-caption').textContent(), bully.stops[0].caption.en);
  assert.equal(await page.evaluate(() => lmsApi.cmi.core.lesson_status), 'incomplete', 'started: incomplete');
  await walk(f, teacher.page);
  await page.waitForFunction(() => lmsApi.cmi.core.lesson_status === 'completed');
  const cmi = await page.evaluate(() => ({ raw: lmsApi.cmi.core.score.raw, min: lmsApi.cmi.core.score.min, max: lmsApi.cmi.core.score.max, location: lmsApi.cmi.core.lesson_location }));
  assert.deepEqual(cmi, { raw: String(SCORE), min: '0', max: '100', location: String(bully.stops.length) });
  // Leaving the lesson ends the session: LMSFinish, with the session's time and a normal exit.
  await page.evaluate(() => { document.getElementById('sco').src = 'about:blank'; });
  await page.waitForFunction(() => window.finished);
  assert.match(await page.evaluate(() => window.sets['cmi.core.session_time']), /^\d{2,4}:\d\d:\d\d(\.\d{1,2})?$/);
  assert.equal(await page.evaluate(() => window.sets['cmi.core.exit']), '');
  // A student who comes back keeps the answers: they are the suspend data.
  const saved = JSON.parse(await page.evaluate(() => lmsApi.cmi.suspend_data));
  assert.equal(Object.keys(saved.answers).length, QUESTIONS);
  assert.equal(Object.values(saved.answers).filter((r) => r === true).length, QUESTIONS - 1);
  assert.equal(saved.done, true);
  assert.deepEqual(offsite, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(teacher.errors, []);
  await teacher.context.close();
  await context.close();
});

test('SCORM 2004: in Chinese, with the LMS\'s pass mark, the LMS records completed, passed and the score', async () => {
  const setup = "lmsApi.loadFromJSON({ scaled_passing_score: '0.7', learner_preference: { language: 'zh-CN' } });";
  const { page, context, f, errors, offsite } = await lmsPage('2004', setup);
  // The learner's language, as the LMS knows it, is the lesson's (zh.json comes with the package).
  await f.locator('html[lang="zh-CN"]').waitFor();
  await f.getByTestId('lesson-caption').filter({ hasText: bully.stops[0].caption.zh }).waitFor();
  // The launch page names the lesson in the learner's language (the frame's title, for a screen reader).
  assert.equal(await page.frameLocator('#sco').locator('#lab').getAttribute('title'), bully.title.zh);
  const teacher = await open(browser, server.url + '?lesson=bully&lang=zh');
  await walk(f, teacher.page);
  await page.waitForFunction(() => lmsApi.cmi.completion_status === 'completed');
  const cmi = await page.evaluate(() => ({
    success: lmsApi.cmi.success_status, raw: lmsApi.cmi.score.raw, scaled: lmsApi.cmi.score.scaled,
    min: lmsApi.cmi.score.min, max: lmsApi.cmi.score.max, progress: lmsApi.cmi.progress_measure,
  }));
  assert.deepEqual(cmi, {
    success: SCORE / 100 >= 0.7 ? 'passed' : 'failed', raw: String(SCORE), scaled: String(Math.round(SCORE * 100) / 10000),
    min: '0', max: '100', progress: '1',
  });
  await page.evaluate(() => { document.getElementById('sco').src = 'about:blank'; });
  await page.waitForFunction(() => window.finished);
  assert.match(await page.evaluate(() => window.sets['cmi.session_time']), /^PT\d+H\d+M\d+(\.\d+)?S$/);
  assert.equal(await page.evaluate(() => window.sets['cmi.exit']), 'normal');
  assert.deepEqual(offsite, []);
  assert.deepEqual(errors, []);
  assert.deepEqual(teacher.errors, []);
  await teacher.context.close();
  await context.close();
});

test('SCORM 1.2: a student who leaves mid-lesson is suspended, and on coming back keeps the answers given', async () => {
  const { page, context, f, errors } = await lmsPage('1.2', '');
  // The first question, answered with whatever node: the verdict says whether it was right.
  const first = bully.stops.findIndex((s) => s.question);
  for (let k = 0; k < first; k++) await next(f, k + 1);
  await give(f, await kind(f), null);
  const right = await f.getByTestId('lesson-verdict').evaluate((e) => e.classList.contains('right'));
  const score = right ? Math.round(10000 / QUESTIONS) / 100 : 0;
  await page.waitForFunction((s) => lmsApi.cmi.core.score.raw === s, String(score));
  await next(f, first + 1);
  await page.evaluate(() => { document.getElementById('sco').src = 'about:blank'; });
  await page.waitForFunction(() => window.finished);
  assert.equal(await page.evaluate(() => window.sets['cmi.core.exit']), 'suspend');
  assert.equal(await page.evaluate(() => lmsApi.cmi.core.lesson_status), 'incomplete');
  // The LMS opens a new attempt session with what it kept, and the student comes back.
  await page.evaluate(() => {
    const kept = lmsApi.cmi.suspend_data;
    window.API = new Scorm12API({ autocommit: false, lmsCommitUrl: false, logLevel: 4 });
    window.lmsApi = window.API;
    lmsApi.loadFromJSON({ suspend_data: kept, core: { entry: 'resume' } });
    document.getElementById('sco').src = '/1.2/bully.html';
  });
  await f.locator(`[data-testid="lesson"][data-stop="${first + 1}"] [data-testid="lesson-caption"]`).waitFor({ timeout: 60000 });
  await page.waitForFunction(() => lmsApi.cmi.core.lesson_status === 'incomplete');
  assert.equal(await page.evaluate(() => lmsApi.cmi.core.score.raw), String(score), 'the earlier answer still counts');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the page\'s lesson list offers the course\'s two packages, which the build publishes', async () => {
  for (const [lang, words] of [['en', /SCORM 1\.2 package.*SCORM 2004 package/], ['zh', /SCORM 1\.2 课件包.*SCORM 2004 课件包/]]) {
    const { page, errors, context } = await open(browser, `${server.url}?lang=${lang}`);
    // The default page is the Bully player, which has no lesson player: the full player takes
    // over in the same language (its Chinese texts arrive after its first frame).
    await page.getByTestId('lessons').click();
    const offer = page.getByTestId('course-scorm');
    await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid="course-scorm"]')?.textContent ?? ''), words.source);
    assert.match(await offer.textContent(), words);
    const links = offer.locator('a[download]');
    assert.equal(await links.count(), 2);
    const versions = [];
    for (const href of await links.evaluateAll((as) => as.map((a) => a.href))) {
      const response = await page.request.get(href);
      assert.equal(response.status(), 200, href);
      const manifest = unzip(await response.body())['imsmanifest.xml'].toString('utf8');
      versions.push(/<schemaversion>([^<]+)<\/schemaversion>/.exec(manifest)[1]);
      // The course: every lesson is a SCO.
      assert.equal([...manifest.matchAll(/<item identifier=/g)].length, JSON.parse(await readFile(`${DIST}/course.json`, 'utf8')).length);
    }
    assert.deepEqual(versions, ['1.2', '2004 4th Edition']);
    // axe-core finds no serious or critical violation in the dialog that offers them.
    await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async () => (await axe.run(document.querySelector('[data-testid="course"]'), { resultTypes: ['violations'] }))
      .violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
    assert.deepEqual(found, [], lang);
    assert.deepEqual(errors, []);
    await context.close();
  }
});
