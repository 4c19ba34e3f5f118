// `make scorm`: lessons as SCORM packages, for a learning platform (LMS) that records each
// student's completion and score.
//
// A package is a ZIP with `imsmanifest.xml` at its root and, beside it:
// * `election-lab.html`, the single offline file of `make offline` (scripts/offline.mjs: the
//   page, its wasm and the course inlined; nothing is fetched from the network), and `zh.json`,
//   the Chinese catalog, which that page fetches from beside itself when Chinese is chosen;
// * `scorm.js` (scripts/scorm-sco.js), the glue between the lab's lesson events and the LMS's
//   SCORM run-time;
// * one launch page per lesson, `<id>.html`: one SCO each, framing the lab at that lesson.
// The course package holds every lesson of the course (one SCO each, in course order), so the
// LMS records a score per lesson; a lesson's package holds that lesson alone. Each comes as
// SCORM 1.2 and as SCORM 2004 4th Edition (the manifests differ; the launch pages and the lab
// do not, save for which run-time they look for).
//
// `node scripts/scorm.mjs [--dist dist] [--out dist-scorm] [--lesson ID]...`: without --lesson,
// the course; each --lesson adds that lesson's pair of packages instead. Reuses dist/ as it is.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOffline } from './offline.mjs';
import { zip } from './zip.mjs';

const here = dirname(fileURLToPath(import.meta.url));

/** XML text and attribute values. */
const xml = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The course's lessons from `dist` (course order): id, file, titles, stop and question counts. */
export async function courseLessons(dist) {
  const course = JSON.parse(await readFile(join(dist, 'course.json'), 'utf8'));
  const out = [];
  for (const e of course) {
    const l = JSON.parse(await readFile(join(dist, 'lessons', e.file), 'utf8'));
    out.push({
      id: e.id,
      title: { en: e.title.en, zh: e.title.zh },
      stops: l.stops.length,
      questions: l.stops.filter((s) => s.question).length,
    });
  }
  return out;
}

/** A lesson's launch page (its SCO): the lab framed at the lesson, and the glue. */
export function launchPage(lesson, version) {
  const attrs = [
    ['data-scorm', version],
    ['data-lesson', lesson.id],
    ['data-stops', lesson.stops],
    ['data-questions', lesson.questions],
    ['data-title-en', lesson.title.en],
    ['data-title-zh', lesson.title.zh],
  ].map(([k, v]) => `${k}="${xml(v)}"`).join(' ');
  return `<!doctype html>
<html lang="en" ${attrs}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${xml(lesson.title.en)}</title>
<style>html, body { margin: 0; height: 100%; } iframe { display: block; border: 0; width: 100%; height: 100%; }</style>
</head>
<body>
<iframe id="lab" title="${xml(lesson.title.en)}"></iframe>
<script src="scorm.js"></script>
</body>
</html>
`;
}

const ORG = 'election-lab';

/** The manifest of a package holding `lessons` (one SCO each), for SCORM `version`. */
export function manifest(id, title, lessons, version) {
  const items = lessons
    .map((l) => `      <item identifier="item-${xml(l.id)}" identifierref="sco-${xml(l.id)}">\n        <title>${xml(l.title.en)}</title>\n      </item>`)
    .join('\n');
  const scormType = version === '1.2' ? 'adlcp:scormtype' : 'adlcp:scormType';
  const scos = lessons
    .map((l) => `    <resource identifier="sco-${xml(l.id)}" type="webcontent" ${scormType}="sco" href="${xml(l.id)}.html">
      <file href="${xml(l.id)}.html"/>
      <dependency identifierref="lab"/>
    </resource>`)
    .join('\n');
  const shared = `    <resource identifier="lab" type="webcontent" ${scormType}="asset">
      <file href="election-lab.html"/>
      <file href="zh.json"/>
      <file href="scorm.js"/>
    </resource>`;
  const head =
    version === '1.2'
      ? `<manifest identifier="${xml(id)}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>`
      : `<manifest identifier="${xml(id)}" version="1"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
${head}
  <organizations default="${ORG}">
    <organization identifier="${ORG}">
      <title>${xml(title)}</title>
${items}
    </organization>
  </organizations>
  <resources>
${scos}
${shared}
  </resources>
</manifest>
`;
}

export const VERSIONS = [
  ['1.2', 'scorm12'],
  ['2004', 'scorm2004'],
];

/**
 * The packages of `which` (`null`: the course; else a lesson id) from `dist`:
 * [{file, version, bytes: Buffer}], one per SCORM version. `offline` is the offline page's
 * text when already built (it is the same for every package).
 */
export async function buildPackages(dist, which, offline) {
  const all = await courseLessons(dist);
  let lessons = all;
  if (which !== null) {
    lessons = all.filter((l) => l.id === which);
    if (lessons.length === 0) throw new Error(`scorm: no lesson '${which}' in the course (lessons: ${all.map((l) => l.id).join(', ')})`);
  }
  const page = offline ?? (await buildOffline(dist)).html;
  const zh = await readFile(join(dist, 'zh.json'));
  const glue = await readFile(join(here, 'scorm-sco.js'));
  const name = which ?? 'course';
  const title = which === null ? 'Election Lab' : `Election Lab: ${lessons[0].title.en}`;
  return VERSIONS.map(([version, tag]) => {
    const entries = [
      { name: 'imsmanifest.xml', data: manifest(`election-lab-${name}-${tag}`, title, lessons, version) },
      ...lessons.map((l) => ({ name: `${l.id}.html`, data: launchPage(l, version) })),
      { name: 'scorm.js', data: glue },
      { name: 'election-lab.html', data: page },
      { name: 'zh.json', data: zh },
    ];
    return { file: `election-lab-${name}-${tag}.zip`, version, bytes: zip(entries) };
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = join(here, '..');
  let dist = join(root, 'dist');
  let out = join(root, 'dist-scorm');
  const lessons = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined || !['--dist', '--out', '--lesson'].includes(flag)) {
      console.error(`scorm: usage: node scripts/scorm.mjs [--dist DIR] [--out DIR] [--lesson ID]... (not understood: ${flag})`);
      process.exit(2);
    }
    if (flag === '--dist') dist = value;
    if (flag === '--out') out = value;
    if (flag === '--lesson') lessons.push(value);
    i++;
  }
  try {
    const { html } = await buildOffline(dist);
    await mkdir(out, { recursive: true });
    for (const which of lessons.length ? lessons : [null]) {
      for (const p of await buildPackages(dist, which, html)) {
        await writeFile(join(out, p.file), p.bytes);
        console.log(`${join(out, p.file)}: SCORM ${p.version}, ${p.bytes.length} bytes`);
      }
    }
  } catch (e) {
    // A build that is not there is named, with what makes it.
    console.error(e.code === 'ENOENT' ? `scorm: ${e.path} not found (make build writes ${dist})` : e.message);
    process.exit(2);
  }
}
