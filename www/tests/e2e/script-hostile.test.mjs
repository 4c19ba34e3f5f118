// Hostile scripts in the page (issue 26): a function that calls itself without end and a string
// doubled in a loop are stopped by the interpreter's limits in the browser as natively, the run
// stopped at the failing step with the node, the handler, the line and the limit named; the run
// so far is kept and the page goes on answering (the language switch, stepping back).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, step } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

/** The Bully template with `body` first in `on_start`, and `extra` before it. */
function hostile(template, body, extra = '') {
  const out = template.replace('fn on_start() {', `${extra}fn on_start() {\n${body}`);
  assert.notEqual(out, template);
  return out;
}

const cases = [
  ['deep recursion', 'fn deep(n) { deep(n + 1) }\n', '    deep(0);', /calls nested deeper than \d+ levels/],
  ['a string doubled in a loop', '', '    let s = "x";\n    loop { s += s; }', /string too large/],
];

for (const [name, extra, body, says] of cases) {
  test(`${name} stops the run at its step with node, handler and line named, and the page goes on`, async () => {
    const { page, errors, context } = await open(browser, server.url + '?preset=bully-worst-8');
    await page.locator('.scenario-bar select').first().selectOption('__script__');
    await page.getByTestId('script-editor').waitFor();
    const template = await page.getByTestId('script-source').inputValue();
    await page.getByTestId('script-source').fill(hostile(template, body, extra));
    await page.getByTestId('script-run').click();
    const fault = page.getByTestId('script-fault');
    await fault.waitFor({ timeout: 60000 });
    const why = await fault.textContent();
    assert.match(why, says);
    assert.match(why, /N\d+/, `the node is named: ${why}`);
    assert.match(why, /on_start/, `the handler is named: ${why}`);
    assert.match(why, /line \d+/, `the line is named: ${why}`);
    // The run so far is kept: the failing step is shown, and the run back to step 0 is there.
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=step]')?.textContent) >= 1);
    const failed = Number(await step(page));
    assert.ok(failed >= 1, `the failing step is shown (${failed})`);
    // The page answers: the language switch, then stepping back to the start.
    await page.getByTestId('lang').click();
    await page.waitForFunction(() => document.documentElement.lang.startsWith('zh'));
    await page.getByTestId('lang').click();
    await page.waitForFunction(() => document.documentElement.lang === 'en');
    await page.keyboard.press('Home');
    await page.waitForFunction(() => document.querySelector('[data-testid=step]')?.textContent === '0');
    assert.deepEqual(errors, []);
    await context.close();
  });
}
