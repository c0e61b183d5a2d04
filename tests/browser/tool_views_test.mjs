// Browser tests of the page's council and surprise views (web/council.js, web/surprise.js), with a
// screenshot of each for a person to look at, in the build folder's screenshots/.
//
//   node tests/browser/tool_views_test.mjs SITE_FOLDER CHECK
//
// Every check fails on a console error, an uncaught page error, a failed request or an HTTP error.
import fs from 'node:fs';
import path from 'node:path';
import { expect, openPage, runCheck } from './browser_harness.mjs';

const [site, checkName] = process.argv.slice(2);
const READY_MS = 120_000;
const RUN_MS = 180_000;

// The view as it looks now, in the build folder's screenshots/.
async function screenshot(page, view, name) {
  const folder = path.join(site, '..', 'screenshots');
  fs.mkdirSync(folder, { recursive: true });
  await page.locator(`#${view}-view`).screenshot({ path: path.join(folder, `${name}.png`) });
}

// Opens a view of the page once the page's model is loaded.
async function openView(browser, url, view) {
  const session = await openPage(browser, `${url}#${view}`);
  await session.page.waitForFunction(
    () => ['ready', 'error'].includes(document.getElementById('status').dataset.state), null,
    { timeout: READY_MS });
  const status = await session.page.locator('#status').textContent();
  expect(await session.page.locator('#status').getAttribute('data-state') === 'ready',
         `the page did not get ready: ${status}`);
  expect(await session.page.locator(`#${view}-view`).isVisible(), `the ${view} view is hidden`);
  expect(await session.page.locator('#generate-view').isHidden(), 'the generate view still shows');
  return session;
}

async function waitForViewState(page, id, states, timeout) {
  await page.waitForFunction(([element, wanted]) =>
    wanted.includes(document.getElementById(element).dataset.state), [id, states], { timeout });
  return { state: await page.locator(`#${id}`).getAttribute('data-state'),
           text: await page.locator(`#${id}`).textContent() };
}

// How many tokens of a scored text still flicker: its canvas (web/surprise.js) counts them.
const flickering = (selector) => `Number(document.querySelector('${selector}-flicker').dataset.flickering)`;

// The spans of the scored text, once shown (not waiting for their replay) and every one settled.
async function waitUntilSettled(page, selector, timeout) {
  await page.waitForFunction(`document.querySelectorAll('${selector} .tok').length > 0 && ` +
                             `!document.querySelector('${selector}').classList.contains('surprise-pending') && ` +
                             `${flickering(selector)} === 0`, null, { timeout });
}

const checks = {
  // The council loads its four experts, streams merged text, shows for each character who led,
  // every expert's weight and top tokens, and the merged choice; Stop ends a run.
  async council_view({ browser, url }) {
    if (!fs.existsSync(path.join(site, 'council', 'manifest.json'))) {
      return { skipped: 'no council in the site: ../shared/fixtures/forge-council was absent at build time' };
    }
    const session = await openView(browser, url, 'council');
    const { page } = session;
    const loaded = await waitForViewState(page, 'council-status', ['ready', 'error'], READY_MS);
    expect(loaded.state === 'ready', `the council did not load: ${loaded.text}`);
    expect(await page.locator('#council-legend li').count() === 4, 'the legend does not list 4 experts');
    await page.fill('#council-length', '40');
    await page.click('#council-start');
    const done = await waitForViewState(page, 'council-status', ['done', 'error'], RUN_MS);
    expect(done.state === 'done', `the council run did not finish: ${done.text}`);
    expect(/split on \d+%/.test(done.text), `no split rate in the status: ${done.text}`);
    const out = await page.locator('#council-out').textContent();
    expect(out.startsWith('ROMEO:') && out.length >= 'ROMEO:'.length + 40, `odd council text: ${out}`);
    expect(await page.locator('#council-out .council-token').count() === 40,
           'the generated characters are not marked with their leaders');
    expect(await page.locator('#council-weights').getAttribute('data-columns') === '40',
           'the weights strip does not have one column per character');
    // The newest character's experts: four cards, one leader, weights summing to 1.
    expect(await page.locator('#council-experts .expert-card').count() === 4, 'not 4 expert cards');
    expect(await page.locator('#council-experts .expert-card.leader').count() === 1, 'no single leader');
    const weights = await page.locator('#council-experts .weight-text').allTextContents();
    const sum = weights.map((w) => Number(/weight ([0-9.]+)/.exec(w)[1])).reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - 1) < 0.01, `the weights sum to ${sum}: ${weights}`);
    expect(await page.locator('#council-merged li').count() === 6, 'the merged shortlist is not 6 long');
    // Pointing at a character of the prompt, then a generated one.
    await page.hover('#council-out .token.prompt >> nth=0');
    expect((await page.locator('#council-caption').textContent()).includes('prompt'),
           'a prompt character is not explained as such');
    await page.hover('#council-out .council-token >> nth=3');
    expect((await page.locator('#council-caption').textContent()).startsWith('Character 4:'),
           `pointing at the 4th character: ${await page.locator('#council-caption').textContent()}`);
    await screenshot(page, 'council', 'council');

    // β re-read at every character, and Stop.
    await page.fill('#council-length', '200');
    await page.fill('#council-beta', '12');
    await page.click('#council-start');
    await page.waitForFunction(() => document.querySelectorAll('#council-out .council-token').length >= 5,
                               null, { timeout: RUN_MS });
    await page.click('#council-stop');
    const stopped = await waitForViewState(page, 'council-status', ['done', 'error'], RUN_MS);
    expect(stopped.state === 'done' && stopped.text.includes('stopped by caller'),
           `Stop did not stop the council: ${stopped.text}`);
    return session;
  },

  // The first passage is scored and coloured, its uncertain tokens flicker and then settle; a
  // token shows what the model expected; a selection is scored on its own; typing rescores.
  async surprise_view({ browser, url }) {
    const session = await openView(browser, url, 'surprise');
    const { page } = session;
    const scored = await waitForViewState(page, 'surprise-status', ['done', 'error'], RUN_MS);
    expect(scored.state === 'done', `the passage was not scored: ${scored.text}`);
    await waitUntilSettled(page, '#surprise-text', 10_000);
    const spans = await page.locator('#surprise-text .tok').count();
    expect(spans > 100, `only ${spans} tokens`);
    const stats = await page.locator('#surprise-stats').textContent();
    expect(/bits per token/.test(stats) && /scored in \d+ ms/.test(stats), `no statistics: ${stats}`);
    // Where it was scored, said: the CPU backend in a worker when the adapter is a software one.
    const where = await page.locator('#surprise-backend').textContent();
    const software = /software: runs on the CPU/.test(where);
    expect(software ? where.startsWith('Scored on the CPU backend') && stats.endsWith('on the CPU.')
                    : where.startsWith('Scored on the GPU') && stats.endsWith('on the GPU.'),
           `odd note on where the text was scored: ${where} / ${stats}`);
    // Read it again: some tokens flicker, then all settle with their colours.
    await page.click('#surprise-replay');
    await page.waitForFunction(`${flickering('#surprise-text')} > 0`, null, { timeout: 5_000 });
    await waitUntilSettled(page, '#surprise-text', 10_000);
    const tinted = await page.evaluate(() => [...document.querySelectorAll('#surprise-text .tok')]
      .filter((s) => s.style.backgroundColor !== '').length);
    expect(tinted === spans, `${spans - tinted} tokens were left without a colour`);
    await page.hover('#surprise-text .tok >> nth=12');
    expect(await page.locator('#surprise-bars li').count() === 8, 'no 8 alternatives for a token');
    expect(/cost [0-9.]+ bits/.test(await page.locator('#surprise-caption').textContent()),
           'the token under the pointer does not say its bits');
    await screenshot(page, 'surprise', 'surprise');

    // Select tokens 10 to 60: scored on their own, compared with the passage.
    await page.evaluate(() => {
      const spansOf = document.querySelectorAll('#surprise-text .tok');
      const range = document.createRange();
      range.setStart(spansOf[10].firstChild, 0);
      range.setEnd(spansOf[60].firstChild, spansOf[60].firstChild.length);
      document.getSelection().removeAllRanges();
      document.getSelection().addRange(range);
    });
    await page.waitForFunction(() => !document.getElementById('surprise-selection').hidden, null,
                               { timeout: RUN_MS });
    const note = await page.locator('#surprise-selection-note').textContent();
    expect(/On its own: [0-9.]+ bits per character; inside the text: [0-9.]+/.test(note), `odd note: ${note}`);
    expect(await page.locator('#surprise-selection-text .tok').count() === 51, 'the selection is not 51 tokens');
    await screenshot(page, 'surprise', 'surprise-selection');

    // Typing: rescored after a pause, once.
    await page.fill('#surprise-input', 'The cat sat on the mat.');
    await page.waitForFunction(() => document.querySelectorAll('#surprise-text .tok').length === 23, null,
                               { timeout: RUN_MS });
    expect((await page.locator('#surprise-stats').textContent()).startsWith('23 characters'),
           'the typed text was not rescored');
    await page.fill('#surprise-input', 'Thé €');
    await page.waitForFunction(() => !document.getElementById('surprise-warning').hidden, null,
                               { timeout: RUN_MS });
    return session;
  },

  // A 2,000-character text: scored in windows past the model's context, drawn and settled while
  // the page stays responsive (no main-thread stall long enough to notice).
  async surprise_long_text({ browser, url }) {
    const session = await openView(browser, url, 'surprise');
    const { page } = session;
    await waitForViewState(page, 'surprise-status', ['done', 'error'], RUN_MS);
    const text = 'The quick brown fox jumps over the lazy dog, and then it runs away. '.repeat(30).slice(0, 2000);
    await page.evaluate(() => {
      // The longest gap between timer ticks while the text is scored and drawn.
      window.__longestStall = 0;
      let last = performance.now();
      window.__stallTimer = setInterval(() => {
        const now = performance.now();
        window.__longestStall = Math.max(window.__longestStall, now - last);
        last = now;
      }, 10);
    });
    await page.fill('#surprise-input', text);
    await page.waitForFunction(() => document.querySelectorAll('#surprise-text .tok').length === 2000, null,
                               { timeout: RUN_MS });
    await waitUntilSettled(page, '#surprise-text', 20_000);
    const stall = await page.evaluate(() => {
      clearInterval(window.__stallTimer);
      return window.__longestStall;
    });
    const stats = await page.locator('#surprise-stats').textContent();
    expect(stats.startsWith('2000 characters'), `odd statistics: ${stats}`);
    expect(stall < 400, `the page stalled for ${Math.round(stall)} ms`);
    console.log(`longest main-thread stall while scoring and drawing 2,000 characters: ${Math.round(stall)} ms`);
    console.log(await page.locator('#surprise-backend').textContent());
    console.log(stats);
    await screenshot(page, 'surprise', 'surprise-long');
    return session;
  },
};

await runCheck({ site, checks, checkName, script: 'tool_views_test.mjs' });
