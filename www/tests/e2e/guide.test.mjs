// The user guide is published with the app under guide/ (Trunk's post-build hook runs mdBook),
// and the help dialog links to it in both languages — but not in the offline file, which has no
// guide beside it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, offlineFileUrl } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

for (const [lang, name] of [['en', 'User guide'], ['zh', '用户指南']]) {
  test(`the help dialog links to the guide beside the page (${lang}), and the guide opens`, async () => {
    const { page, errors, context } = await open(browser, server.url + `?lang=${lang}`);
    await page.keyboard.press('?');
    const link = page.getByRole('dialog').getByRole('link', { name: new RegExp(name) });
    assert.equal(await link.getAttribute('href'), 'guide/');
    const href = new URL(await link.getAttribute('href'), page.url()).href;
    const guide = await context.newPage();
    const res = await guide.goto(href);
    assert.equal(res.status(), 200);
    assert.match(await guide.title(), /Election Lab guide/);
    // A chapter reached from the guide's own table of contents.
    await guide.getByRole('link', { name: 'The command line' }).first().click();
    await guide.waitForURL(/cli\.html$/);
    assert.equal(await guide.locator('main h1').first().textContent(), 'The command line');
    assert.deepEqual(errors, []);
    await context.close();
  });
}

test('the offline file\'s help has no link to a guide it does not carry', async () => {
  const url = await offlineFileUrl();
  const { page, errors, context } = await open(browser, url + '?lang=en');
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: 'Keyboard shortcuts' }).waitFor();
  assert.equal(await dialog.getByRole('link').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});
