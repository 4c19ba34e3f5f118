// The network editor (issue 31): a lecturer draws a 6-node network on the canvas by mouse, by
// keyboard and by touch, runs FloodMax on it in rounds, undoes an edit, and a reload of the link
// gives the same network. The editor lives in the workbench: the player hands off to it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, shot, toPage, drag, axe } from './harness.mjs';

let server, browser;
before(async () => { server = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await server?.close(); });

// Two linked nodes, FloodMax in rounds: the start of every drawing below.
const START = {
  algorithm: 'floodmax', nodes: [1, 2], seed: 3, network: { model: 'rounds' },
  topology: { links: [[1, 2]], positions: [[200, 300], [800, 300]] },
};
const startUrl = (extra = '') => server.url + `?trace=${Buffer.from(JSON.stringify(START)).toString('base64url')}${extra}`;
// Where the four new nodes go (viewBox units), by mouse and by touch.
const PLACES = [[800, 700], [500, 850], [200, 700], [500, 520]];

const editorLinks = (page) => page.locator('[data-edit-link]').evaluateAll((ls) => ls.map((l) => l.dataset.editLink).sort());
const editorNodes = (page) => page.locator('[data-edit-node]').evaluateAll((ns) =>
  ns.map((n) => `${n.dataset.editNode}@${n.dataset.x},${n.dataset.y}`).sort());
// The run's canvas: its nodes (id at centre) and how many links it draws.
const drawn = async (page) => ({
  nodes: await page.locator('svg.canvas [data-node]').evaluateAll((ns) => ns.map((n) => {
    const c = n.querySelector('circle.disc');
    return `${n.dataset.node}@${Math.round(+c.getAttribute('cx'))},${Math.round(+c.getAttribute('cy'))}`;
  }).sort()),
  links: await page.locator('svg.canvas line.graph-link').count(),
});
const place = (page, id) => page.locator(`[data-edit-node="${id}"]`).evaluate((n) => [+n.dataset.x, +n.dataset.y]);
// A click lands within a pixel of where it was aimed: places are compared to 3 units.
const near = (p, q) => Math.hypot(p[0] - q[0], p[1] - q[1]) <= 3;
const waitNear = (page, id, q) => page.waitForFunction(([id, q]) => {
  const n = document.querySelector(`[data-edit-node="${id}"]`);
  return n && Math.hypot(+n.dataset.x - q[0], +n.dataset.y - q[1]) <= 3;
}, [id, q]);
const midpoint = async (page, a, b) => {
  const [p, q] = [await place(page, a), await place(page, b)];
  return [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
};

/** Opens the editor from the player (the workbench loads first). */
async function openEditor(page) {
  await page.getByTestId('edit-network').click();
  await page.getByTestId('topo-editor').waitFor();
}

/** A mouse drag in the editor from one place to another (viewBox units). */
/** Steps the run (→) until the clock reads round `r`. */
async function stepToRound(page, r) {
  for (let i = 0; i < 400; i++) {
    if ((await page.getByTestId('round').textContent()).includes(`round ${r}`)) return;
    const step = await page.getByTestId('step').textContent();
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((s) => document.querySelector('[data-testid=step]')?.textContent !== s, step);
  }
  assert.fail(`round ${r} never came`);
}

/** Leaves the editor, steps FloodMax by rounds; returns the canvas drawn. */
async function runRounds(page) {
  await page.getByTestId('topo-done').click();
  await page.waitForSelector('svg.canvas [data-node]');
  await stepToRound(page, 1);
  await stepToRound(page, 2);
  return drawn(page);
}

/** Reloads the page's link (a fresh player) and returns the canvas drawn. */
async function reloaded(page) {
  const url = await page.evaluate(() => location.href);
  assert.match(url, /[?&]t=1\./, 'the link carries the drawn network');
  await page.goto(url);
  await page.waitForSelector('svg.canvas [data-node]');
  return drawn(page);
}

test('by mouse: four nodes added, links dragged, one removed; FloodMax runs in rounds; undo; a reload gives the same network', async () => {
  const { page, errors, context } = await open(browser, startUrl());
  await openEditor(page);
  for (const p of PLACES) {
    const before = await page.locator('[data-edit-node]').count();
    await page.mouse.click(...await toPage(page, ...p));
    await page.waitForFunction((n) => document.querySelectorAll('[data-edit-node]').length === n, before + 1);
  }
  const want = [[200, 300], [800, 300], ...PLACES];
  for (let id = 1; id <= 6; id++) assert.ok(near(await place(page, id), want[id - 1]), `node ${id} where it was clicked`);
  // Nodes on their own: FloodMax needs a connected network, said by name; the run waits.
  await page.getByTestId('topo-refusal').waitFor();
  assert.match(await page.getByTestId('topo-refusal').textContent(), /FloodMax.* needs a connected network/);
  // Links dragged from node to node: a ring 2–3–4–5–1 through the new nodes, and 6 to 1 and 3.
  for (const [a, b] of [[2, 3], [3, 4], [4, 5], [5, 1], [6, 1], [6, 3]]) {
    const before = (await editorLinks(page)).length;
    await drag(page, await place(page, a), await place(page, b));
    await page.waitForFunction((n) => document.querySelectorAll('[data-edit-link]').length === n, before + 1);
  }
  await page.getByTestId('topo-refusal').waitFor({ state: 'detached' });
  // A node dragged to empty space moves.
  await drag(page, await place(page, 6), [520, 560]);
  await waitNear(page, 6, [520, 560]);
  // A link clicked is chosen, and Remove takes it away.
  await page.mouse.click(...await toPage(page, ...await midpoint(page, 1, 6)));
  await page.locator('[data-edit-link="1-6"][aria-pressed="true"]').waitFor({ state: 'attached' });
  await page.getByTestId('topo-remove').click();
  await page.locator('[data-edit-link="1-6"]').waitFor({ state: 'detached' });
  assert.deepEqual(await editorLinks(page), ['1-2', '1-5', '2-3', '3-4', '3-6', '4-5']);
  assert.deepEqual(await axe(page), []);
  await shot(page, 'topology-edit-1280');

  // FloodMax on the drawn network, stepped by rounds.
  const ran = await runRounds(page);
  assert.equal(ran.links, 6);
  assert.equal(ran.nodes.length, 6);
  // Undo the removal: the link 1–6 is back, and the run follows.
  await page.getByTestId('edit-network').click();
  await page.getByTestId('topo-editor').waitFor();
  await page.getByTestId('topo-undo').click();
  await page.locator('[data-edit-link="1-6"]').waitFor({ state: 'attached' });
  await page.getByTestId('topo-done').click();
  await page.waitForFunction(() => document.querySelectorAll('svg.canvas line.graph-link').length === 7);
  const shown = await drawn(page);
  assert.deepEqual(await reloaded(page), shown, 'the link reopens the same network');
  assert.deepEqual(errors, []);
  await context.close();
});

test('by keyboard: A adds, L and Enter link, Delete removes, arrows move, Ctrl+Z undoes', async () => {
  const { page, errors, context } = await open(browser, startUrl());
  await openEditor(page);
  await page.getByTestId('topo-canvas').focus();
  for (let i = 0; i < 4; i++) {
    await page.keyboard.press('a');
  }
  await page.waitForFunction(() => document.querySelectorAll('[data-edit-node]').length === 6);
  // The node added last has the focus.
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.editNode), '6');
  // Link each node to the next in a chain: choose it, L, Tab to the next node, Enter.
  await page.locator('[data-edit-node="2"]').focus();
  for (const next of ['3', '4', '5', '6']) {
    await page.keyboard.press('l');
    await page.getByTestId('topo-status').filter({ hasText: 'Link mode' }).waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.editNode), next, 'Tab goes to the next node');
    await page.keyboard.press('Enter');
    await page.locator(`[data-edit-link$="-${next}"]`).waitFor({ state: 'attached' });
    await page.locator(`[data-edit-node="${next}"]`).focus();
  }
  // 6 back to 1, then one link too many (1–4), removed with Delete on it.
  for (const [a, b] of [['6', '1'], ['1', '4']]) {
    await page.locator(`[data-edit-node="${a}"]`).focus();
    await page.keyboard.press('l');
    await page.locator(`[data-edit-node="${b}"]`).focus();
    await page.keyboard.press('Enter');
    await page.locator(`[data-edit-link="${[a, b].sort().join('-')}"]`).waitFor({ state: 'attached' });
  }
  assert.equal((await editorLinks(page)).length, 7);
  await page.locator('[data-edit-link="1-4"]').focus();
  await page.keyboard.press('Delete');
  await page.locator('[data-edit-link="1-4"]').waitFor({ state: 'detached' });
  // Arrows move the chosen node, and the run's keys do not fire meanwhile.
  await page.locator('[data-edit-node="2"]').focus();
  const [x, y] = await place(page, 2);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Shift+ArrowDown');
  await page.locator(`[data-edit-node="2"][data-x="${x - 25}"][data-y="${y + 100}"]`).waitFor();
  assert.equal(await page.getByTestId('step').textContent(), '0', 'the arrow keys moved the node, not the run');
  // Ctrl+Z takes the move back; Ctrl+Shift+Z puts it again; two more Ctrl+Z and the link 1–4 is back.
  await page.keyboard.press('Control+z');
  await page.locator(`[data-edit-node="2"][data-x="${x - 25}"][data-y="${y}"]`).waitFor();
  await page.keyboard.press('Control+Shift+z');
  await page.locator(`[data-edit-node="2"][data-y="${y + 100}"]`).waitFor();
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+z');
  await page.keyboard.press('Control+z');
  await page.locator('[data-edit-link="1-4"]').waitFor({ state: 'attached' });
  // Escape forgets the choice, then leaves the editor; → steps the run.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await page.getByTestId('topo-editor').waitFor({ state: 'detached' });
  await stepToRound(page, 1);
  await stepToRound(page, 2);
  const shown = await drawn(page);
  assert.equal(shown.links, 7);
  assert.deepEqual(await reloaded(page), shown, 'the link reopens the same network');
  assert.deepEqual(errors, []);
  await context.close();
});

test('by touch at 375 px: taps add, drags link, a long press removes; in Chinese too', async () => {
  const { page, errors, context } = await open(browser, startUrl('&lang=zh'), { width: 375, height: 740 },
    { hasTouch: true, isMobile: true });
  const cdp = await context.newCDPSession(page);
  const touch = async (type, x, y) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
  await page.getByTestId('edit-network').tap();
  await page.getByTestId('topo-editor').waitFor();
  assert.match(await page.getByTestId('topo-editor').textContent(), /网络编辑器|长按/);
  for (const p of PLACES) {
    const before = await page.locator('[data-edit-node]').count();
    const [x, y] = await toPage(page, ...p);
    await page.touchscreen.tap(x, y);
    await page.waitForFunction((n) => document.querySelectorAll('[data-edit-node]').length === n, before + 1);
  }
  for (const [a, b] of [[2, 3], [3, 4], [4, 5], [5, 1], [6, 1], [6, 3]]) {
    const [x0, y0] = await toPage(page, ...await place(page, a));
    const [x1, y1] = await toPage(page, ...await place(page, b));
    const before = (await editorLinks(page)).length;
    await touch('touchStart', x0, y0);
    for (let k = 1; k <= 5; k++) await touch('touchMove', x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5);
    await touch('touchEnd');
    await page.waitForFunction((n) => document.querySelectorAll('[data-edit-link]').length === n, before + 1);
  }
  // A long press on the link 1–6 removes it (the press is held as long as a long press lasts).
  const [x, y] = await toPage(page, ...await midpoint(page, 1, 6));
  await touch('touchStart', x, y);
  await new Promise((ok) => setTimeout(ok, 700));
  await touch('touchEnd');
  await page.locator('[data-edit-link="1-6"]').waitFor({ state: 'detached' });
  assert.deepEqual(await editorLinks(page), ['1-2', '1-5', '2-3', '3-4', '3-6', '4-5']);
  assert.deepEqual(await axe(page), []);
  await shot(page, 'topology-edit-375');
  await page.getByTestId('topo-done').tap();
  await page.waitForFunction(() => document.querySelectorAll('svg.canvas line.graph-link').length === 6);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an algorithm on its own network keeps the drawing and names why it is not run', async () => {
  const { page, errors, context } = await open(browser, server.url + '?preset=bully-heartbeats');
  await openEditor(page);
  await page.getByTestId('topo-canvas').focus();
  await page.keyboard.press('a');
  const refusal = page.getByTestId('topo-refusal');
  await refusal.waitFor();
  assert.match(await refusal.textContent(), /Bully runs on its own network and takes no drawn one/);
  assert.match(await page.evaluate(() => location.search), /preset=bully-heartbeats/, 'the run is unchanged');
  assert.deepEqual(errors, []);
  await context.close();
});
