// The whole path works: wasm loads, the engine's nodes are drawn, a real click crashes a node
// in the engine and the drawing follows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

test('clicking a node crashes it and clicking again recovers it', async () => {
  const { page, errors } = await open(browser, server.url);
  const node = page.locator('[data-node="80"]');
  assert.equal(await node.getAttribute('data-status'), 'up');
  assert.equal(await page.locator('[data-node]').count(), 6);
  await node.click();
  await page.waitForSelector('[data-node="80"][data-status="crashed"]');
  await shot(page, 'skeleton-crashed');
  await node.click();
  await page.waitForSelector('[data-node="80"][data-status="up"]');
  assert.deepEqual(errors, []);
});
