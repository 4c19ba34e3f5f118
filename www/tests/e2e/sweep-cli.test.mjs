// An experiment gives the same numbers in the page as on the command line: every ready-made
// experiment (shortened to a few seeds), run in wasm with `sweep_csv`, is compared byte for byte
// with what `election-lab sweep` prints for the same spec (per run and summary), in the workbench.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, launch, open } from './harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** `election-lab sweep - [--summary]` on `spec` (the native build of this checkout). */
function cli(spec, summary) {
  const args = ['run', '--quiet', '--offline', '-p', 'election-lab', '--', 'sweep', '-'];
  if (summary) args.push('--summary');
  return execFileSync('cargo', args, { cwd: root, input: JSON.stringify(spec), encoding: 'utf8', maxBuffer: 64 << 20 });
}

test('every ready-made experiment gives the same CSV in the page and on the command line', async () => {
  // `sweep_csv` is the workbench's (the player carries no sweep): opened through its loading step.
  const { page, errors } = await open(browser, server.url + '?experiment=one-partition');
  await page.getByTestId('experiments').waitFor();
  const catalog = JSON.parse(await page.evaluate(() => window.wasmBindings.experiment_catalog()));
  assert.ok(catalog.length >= 5, 'the ready-made experiments are offered');
  for (const { id, spec } of catalog) {
    // A few seeds per line keep the test short; lines with one seed keep theirs.
    spec.seeds = { count: 3, start: 11 };
    for (const line of [...(Array.isArray(spec.algorithms) ? spec.algorithms : []), ...(spec.variants || [])]) {
      if (line.seeds) line.seeds = { count: 2 };
    }
    if (spec.nodes && spec.nodes.to) spec.nodes = { from: spec.nodes.from, to: spec.nodes.from + 5 };
    for (const summary of [false, true]) {
      const inPage = await page.evaluate(([text, s]) => window.wasmBindings.sweep_csv(text, s), [JSON.stringify(spec), summary]);
      assert.equal(inPage, cli(spec, summary), `${id}${summary ? ' --summary' : ''}`);
      assert.ok(inPage.split('\n').length > 2, `${id}: rows`);
    }
  }
  // A bad spec throws its error, naming the field, as the command line reports it.
  const error = await page.evaluate(() => { try { window.wasmBindings.sweep_csv('{"measure": "speed"}', false); return ''; } catch (e) { return String(e); } });
  assert.match(error, /^measure: unknown measure 'speed'/);
  assert.deepEqual(errors, []);
});
