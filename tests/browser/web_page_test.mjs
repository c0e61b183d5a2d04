// Browser tests of the page `make web` builds (the harness: browser_harness.mjs), on the site folder
// served from a tiny static server on 127.0.0.1 that this test starts and stops.
//
//   node tests/browser/web_page_test.mjs SITE_FOLDER CHECK
//
// Every check fails on a console error, an uncaught page error, a failed request or an HTTP error
// response (except where a check provokes one on purpose).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, openPage, runCheck } from './browser_harness.mjs';

const [site, checkName] = process.argv.slice(2);

const READY_MS = 120_000;
const RUN_MS = 180_000;

const statusState = (page) => page.locator('#status').getAttribute('data-state');

async function waitForState(page, states, timeout) {
  await page.waitForFunction(
    (wanted) => wanted.includes(document.getElementById('status').dataset.state),
    states, { timeout });
  return { state: await statusState(page), text: await page.locator('#status').textContent() };
}

// Nothing may be left spinning: the page is not busy and its progress bar is gone.
async function expectSettled(page) {
  expect(await page.evaluate(() => document.body.getAttribute('aria-busy')) === 'false',
         'the page still says it is busy');
  expect(await page.locator('#progress').isHidden(), 'a progress bar is still showing');
}

async function ready(page) {
  const { state, text } = await waitForState(page, ['ready', 'error'], READY_MS);
  expect(state === 'ready', `the page did not get ready: ${text}`);
}

async function configure(page, { prompt, temperature, topK, length }) {
  if (prompt !== undefined) await page.fill('#prompt', prompt);
  if (temperature !== undefined) await page.fill('#temperature', String(temperature));
  if (topK !== undefined) await page.fill('#top-k', String(topK));
  if (length !== undefined) await page.fill('#length', String(length));
}

// Screenshots go beside the site folder, in the build tree: SITE/../screenshots/CHECK.png.
async function screenshot(page, name) {
  const folder = path.join(site, '..', 'screenshots');
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true });
}

async function runToEnd(page) {
  await page.click('#run');
  const { state, text } = await waitForState(page, ['done', 'error'], RUN_MS);
  expect(state === 'done', `the run did not finish: ${text}`);
  return text;
}

const generatedCount = (page) => page.locator('#tokens .token:not(.prompt)').count();

// Counts heat-map pixels that are not white (attention drawn), in device pixels.
const inkedPixels = (page) => page.evaluate(() => {
  const canvas = document.getElementById('heatmap');
  if (!canvas.width || !canvas.height) return 0;
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0;
  for (let i = 0; i < data.length; i += 4) inked += data[i + 3] > 0 && data[i + 1] < 250;
  return inked;
});

const checks = {
  // The page loads with no errors, gets a WebGPU adapter and loads the model.
  async page_loads({ browser, url }) {
    const session = await openPage(browser, url);
    await ready(session.page);
    expect(await session.page.locator('#run').isEnabled(), 'Run is disabled on a ready page');
    const cost = await session.page.locator('#cost').textContent();
    expect(/Adapter.+\S/.test(cost) && cost.includes('parameters'), `the cost panel is incomplete: ${cost}`);
    await expectSettled(session.page);
    return session;
  },

  // A run streams text, and for the newest token shows its shortlist and a heat map of every
  // layer and head; the arrow keys move the inspected token.
  async run_streams_and_traces({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await ready(page);
    await configure(page, { prompt: 'The ', temperature: 0.8, topK: 12, length: 16 });
    await page.click('#run');
    const { state, text } = await waitForState(page, ['done', 'error'], RUN_MS);
    expect(state === 'done', `the run did not finish: ${text}`);
    expect(await generatedCount(page) === 16, `expected 16 generated tokens, saw ${await generatedCount(page)}`);
    const output = await page.locator('#tokens').textContent();
    expect(output.startsWith('The ') && output.length >= 'The '.length + 16, `odd output: ${output}`);
    const info = await page.evaluate(() => document.getElementById('cost').textContent);
    expect(/Decode.+tokens\/s/.test(info) && /Prefill/.test(info), `no speed in the cost panel: ${info}`);

    const shortlist = page.locator('#shortlist li');
    expect(await shortlist.count() === 8, `the shortlist has ${await shortlist.count()} entries, not 8`);
    expect(await page.locator('#shortlist li.chosen').count() <= 1, 'more than one token marked chosen');
    const rows = Number(await page.locator('#heatmap').getAttribute('data-rows'));
    expect(rows >= 2, `the heat map has ${rows} rows`);
    const inked = await inkedPixels(page);
    expect(inked > 0, 'the heat map is blank');
    const transition = () => page.evaluate(
      () => getComputedStyle(document.querySelector('#shortlist .bar')).transitionDuration);
    expect(await transition() !== '0s', 'the shortlist bars do not animate at all');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await transition() === '0s', 'prefers-reduced-motion still animates the bars');

    await page.focus('#tokens');
    const before = await page.locator('#tokens').getAttribute('aria-activedescendant');
    await page.keyboard.press('Home');
    const first = await page.locator('#tokens').getAttribute('aria-activedescendant');
    expect(before !== first && first === 'token-0', `Home did not select the first token: ${before} → ${first}`);
    const caption = await page.locator('#shortlist-caption').textContent();
    expect(caption.includes('prompt'), `a prompt token is not explained as such: ${caption}`);
    await page.keyboard.press('End');
    expect(await page.locator('#tokens').getAttribute('aria-activedescendant') === before,
           'End did not go back to the newest token');
    await expectSettled(page);
    return session;
  },

  // The JavaScript API on its own: results, and errors as rejected promises with the library's
  // message.
  async api_promises({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await ready(page);
    const outcome = await page.evaluate(async () => {
      const { createWgpt, fetchModel } = await import('./wgpt.js');
      const wgpt = await createWgpt();
      const files = await fetchModel('model/');
      const rejection = (promise) => promise.then(() => 'resolved', (error) => error.message);
      const badWeights = await rejection(wgpt.loadModel({ ...files, weights: new Uint8Array(64) }));
      await wgpt.loadModel(files);
      const scored = await wgpt.score('The ', 3);
      const greedy = await wgpt.greedyIds('The', 8);
      const again = await wgpt.greedyIds('The', 8);
      const unknown = await rejection(wgpt.generate('Thé', { maxTokens: 2 }));
      const first = wgpt.generate('The', { maxTokens: 6, temperature: 1 });  // busy while the next call comes
      const concurrent = await rejection(wgpt.generate('The', { maxTokens: 2 }));
      await first;
      const controller = new AbortController();
      let pieces = 0;
      const aborted = await wgpt.generate('The', { maxTokens: 40, signal: controller.signal }, () => {
        if (++pieces === 3) controller.abort();
      });
      const badSampling = {
        topP: await rejection(wgpt.generate('The', { topP: 0, maxTokens: 2 })),
        temperature: await rejection(wgpt.generate('The', { temperature: -1, maxTokens: 2 })),
        window: await rejection(
          wgpt.generate('The', { repeatPenalty: 1.2, repeatLastN: 100000, maxTokens: 2 })),
        bias: await rejection(wgpt.generate('The', { logitBias: { 100000: 1 }, maxTokens: 2 })),
        type: await rejection(wgpt.generate('The', { topK: 'forty', maxTokens: 2 })),
      };
      const sampling = { seed: 3, topK: 10, topP: 0.9, minP: 0.02, repeatPenalty: 1.3,
                         presencePenalty: 0.2, frequencyPenalty: 0.1, repeatLastN: 8,
                         logitBias: { 5: -Infinity }, maxTokens: 12 };
      const sampled = [await wgpt.generate('The', sampling), await wgpt.generate('The', sampling)];
      return { badWeights, scored, greedy, again, unknown, concurrent, aborted, pieces, badSampling,
               sampled };
    });
    const { scored, greedy, again } = outcome;
    expect(/model file|safetensors/.test(outcome.badWeights), `bad weights: ${outcome.badWeights}`);
    expect(scored.tokens.length === 4 && scored.tokens[0].bits === null &&
           scored.tokens.slice(1).every((t) => t.bits > 0 && t.alternatives.length === 3) &&
           scored.meanBits > 0 && Math.abs(scored.perplexity - 2 ** scored.meanBits) < 1e-6,
           `odd scores: ${JSON.stringify(scored)}`);
    expect(greedy.ids.length === 8 && JSON.stringify(greedy) === JSON.stringify(again),
           `greedy ids are not reproducible: ${JSON.stringify(greedy)} vs ${JSON.stringify(again)}`);
    expect(outcome.unknown.includes('not in the vocabulary'), `unknown character: ${outcome.unknown}`);
    expect(outcome.concurrent.includes('a run is in progress'), `concurrent run: ${outcome.concurrent}`);
    expect(outcome.aborted.stop === 'stopped by caller' && outcome.aborted.ids.length < 40,
           `abort did not stop the run: ${JSON.stringify(outcome.aborted)}`);
    const bad = outcome.badSampling;
    expect(bad.topP.includes('top-p 0 is not in (0, 1]'), `top-p 0: ${bad.topP}`);
    expect(bad.temperature.includes('temperature -1 is not'), `temperature -1: ${bad.temperature}`);
    expect(bad.window.includes('penalty window of 100000 tokens is larger than the model'),
           `a window past the context: ${bad.window}`);
    expect(bad.bias.includes('token id 100000, which is outside the vocabulary'),
           `a bias outside the vocabulary: ${bad.bias}`);
    expect(bad.type.includes('options.topK must be a number'), `topK 'forty': ${bad.type}`);
    const [first, second] = outcome.sampled;
    expect(first.ids.length === 12 && JSON.stringify(first.ids) === JSON.stringify(second.ids),
           `a seed does not repeat its tokens: ${first.ids} vs ${second.ids}`);
    expect(!first.ids.includes(5), `a banned token was sampled: ${first.ids}`);
    return session;
  },

  // ?gate: greedy ids in the browser equal the native tool's.
  async gate_passes({ browser, url }) {
    const session = await openPage(browser, `${url}?gate`);
    const { page } = session;
    await page.waitForFunction(() => document.title.startsWith('GATE'), null, { timeout: RUN_MS });
    const verdict = await page.locator('#gate').textContent();
    expect(await page.title() === 'GATE PASS', `the gate failed: ${verdict}`);
    expect(await page.locator('#gate').getAttribute('data-result') === 'pass', 'no pass in the page');
    await expectSettled(page);
    return session;
  },

  // Stop ends a long run early, the run reports why, and the page can run again.
  async stop_works({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await ready(page);
    const limit = Number(await page.locator('#length').getAttribute('max'));
    await configure(page, { prompt: 'The ', temperature: 1, topK: 0, length: limit - 8 });
    await page.click('#run');
    await page.waitForFunction(
      () => document.querySelectorAll('#tokens .token:not(.prompt)').length >= 3, null,
      { timeout: RUN_MS });
    await page.keyboard.press('Escape');
    const { state, text } = await waitForState(page, ['done', 'error'], RUN_MS);
    expect(state === 'done' && text.includes('stopped by caller'), `the run did not stop: ${text}`);
    const generated = await generatedCount(page);
    expect(generated < limit - 8, `stop came too late: ${generated} tokens`);
    await configure(page, { length: 2 });
    await page.click('#run');
    const again = await waitForState(page, ['done', 'error'], RUN_MS);
    expect(again.state === 'done', `the page could not run again after stopping: ${again.text}`);
    await expectSettled(page);
    return session;
  },

  // A prompt with characters the model does not know, and a model file that is neither format:
  // each says so plainly and leaves nothing spinning.
  async bad_input({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await ready(page);
    await configure(page, { prompt: 'Thé €' });
    await page.click('#run');
    const unknown = await waitForState(page, ['error', 'done'], RUN_MS);
    expect(unknown.state === 'error' && unknown.text.includes('not in the vocabulary'),
           `an unknown character was not reported: ${unknown.text}`);
    expect(await page.locator('#run').isEnabled(), 'Run stayed disabled after a bad prompt');
    await expectSettled(page);
    await page.close();

    const broken = await openPage(browser, `${url}?model=bad-model/`);
    const loaded = await waitForState(broken.page, ['ready', 'error'], READY_MS);
    expect(loaded.state === 'error' && loaded.text.includes('model file'),
           `a corrupt model file was not reported: ${loaded.text}`);
    expect(await broken.page.locator('#run').isDisabled(), 'Run is enabled without a model');
    await expectSettled(broken.page);
    return { problems: [...session.problems, ...broken.problems] };
  },

  // The GPU process dies mid-run (Chromium's own crash switch): the run ends with a plain
  // message, the page says the device is gone, and nothing is left spinning.
  async device_lost({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await ready(page);
    const limit = Number(await page.locator('#length').getAttribute('max'));
    await configure(page, { prompt: 'The ', length: limit - 8 });
    await page.click('#run');
    await page.waitForFunction(
      () => document.querySelectorAll('#tokens .token:not(.prompt)').length >= 2, null,
      { timeout: RUN_MS });
    const cdp = await browser.newBrowserCDPSession();
    await cdp.send('Browser.crashGpuProcess');
    const { state, text } = await waitForState(page, ['error', 'done'], RUN_MS);
    expect(state === 'error', `the run went on as if nothing happened: ${text}`);
    await page.waitForFunction(() => !document.getElementById('notice').hidden, null, { timeout: RUN_MS });
    const notice = await page.locator('#notice').textContent();
    expect(notice.includes('GPU device was lost'), `no plain notice: ${notice}`);
    expect(await page.locator('#run').isDisabled(), 'Run is enabled on a lost device');
    await expectSettled(page);
    return session;
  },

  // After a run wider than its frame the heat map shows the newest token's column (the frame is
  // scrolled to it), beside a legend; a long context shows its newest MAX_COLUMNS keys; a model with
  // more heads than fit shows a row per layer, expanded on a click.
  async heatmap_follows_newest({ browser, url }) {
    const session = await openPage(browser, url);
    const { page } = session;
    await page.setViewportSize({ width: 900, height: 900 });
    await ready(page);
    // 32 tokens: 52 + 33 × 14 px of map in a panel of under 420 px (two panels side by side).
    await configure(page, { prompt: 'The ', temperature: 0.8, topK: 12, length: 32 });
    await runToEnd(page);
    const view = await page.evaluate(() => {
      const frame = document.querySelector('.heatmap-frame');
      const canvas = document.getElementById('heatmap');
      return { left: frame.scrollLeft, width: frame.clientWidth, scrollWidth: frame.scrollWidth,
               lastKey: Number(canvas.dataset.lastKey),
               tokens: document.querySelectorAll('#tokens .token').length };
    });
    expect(view.scrollWidth > view.width, `the map fits its frame (${view.scrollWidth} px): nothing to scroll`);
    expect(view.left + view.width >= view.scrollWidth - 1,
           `the newest column is out of view: scrolled to ${view.left} of ${view.scrollWidth - view.width}`);
    expect(view.lastKey === view.tokens - 2,
           `the map shows position ${view.lastKey}, not the newest token's query ${view.tokens - 2}`);
    expect(await page.locator('.legend .ramp').isVisible(), 'no colour legend');
    await screenshot(page, 'heatmap_follows_newest');

    // 12 layers × 12 heads (GPT-2 124M's): 12 rows, one per layer; a click on a layer adds its heads.
    const rows = await page.evaluate(async () => {
      const { HeatMap } = await import('./attention.js');
      const frame = document.createElement('div');
      frame.className = 'heatmap-frame';
      const canvas = document.createElement('canvas');
      canvas.id = 'many-heads';
      const caption = document.createElement('p');
      frame.append(canvas);
      document.querySelector('main').append(frame, caption);
      const kvLen = 5;
      const layers = Array.from({ length: 12 }, () => new Float32Array(12 * kvLen).fill(1 / kvLen));
      const map = new HeatMap(canvas, caption);
      map.draw({ layers, kvLen, nHead: 12 }, kvLen - 1, ['a', 'b', 'c', 'd', 'e']);
      window.manyHeadsCaption = caption;
      return Number(canvas.dataset.rows);
    });
    expect(rows === 12, `144 heads drew ${rows} rows, not one per layer`);
    const windowed = await page.evaluate(async () => {
      const { HeatMap } = await import('./attention.js');
      const canvas = document.createElement('canvas');
      const caption = document.createElement('p');
      const kvLen = 60;
      const labels = Array.from({ length: kvLen }, (_, k) => `t${k}`);
      const row = { layers: [new Float32Array(kvLen).fill(1 / kvLen)], kvLen, nHead: 1 };
      new HeatMap(canvas, caption).draw(row, kvLen - 1, labels);
      return { columns: Number(canvas.dataset.columns), caption: caption.textContent };
    });
    expect(windowed.columns === 48 && windowed.caption.includes('Showing the last 48 of 60 tokens'),
           `60 keys drew ${windowed.columns} columns: ${windowed.caption}`);
    await page.locator('#many-heads').click({ position: { x: 20, y: 21 } });  // layer 1's row
    const expanded = Number(await page.locator('#many-heads').getAttribute('data-rows'));
    expect(expanded === 24, `a click on a layer drew ${expanded} rows, not 12 + its 12 heads`);
    await page.locator('#many-heads').scrollIntoViewIfNeeded();
    await screenshot(page, 'heatmap_many_heads');
    await page.locator('#many-heads').click({ position: { x: 20, y: 21 } });
    const folded = Number(await page.locator('#many-heads').getAttribute('data-rows'));
    expect(folded === 12, `a second click left ${folded} rows`);
    await expectSettled(page);
    return session;
  },

  // A run's settings and seed go into the address; opening that address runs the same text. A
  // blank seed draws one, and the address and the status show it.
  async seed_in_url_reproduces({ browser, url }) {
    const query = '?prompt=The%20&temperature=1&topK=0&topP=0.9&seed=4242&tokens=12';
    const first = await openPage(browser, url + query);
    await ready(first.page);
    for (const [control, value] of [['#seed', '4242'], ['#top-p', '0.9'], ['#top-k', '0'], ['#length', '12']]) {
      const shown = await first.page.inputValue(control);
      expect(shown === value, `${control} shows ${shown}, not the address's ${value}`);
    }
    const status = await runToEnd(first.page);
    expect(status.includes('seed 4242'), `the status does not name the seed: ${status}`);
    const text = await first.page.locator('#tokens').textContent();
    const shades = await first.page.$$eval('#tokens .token:not(.prompt)', (spans) =>
      spans.map((span) => [Number(span.dataset.p), span.style.backgroundColor]));
    expect(shades.length === 12 && shades.every(([p, colour]) => p >= 0 && p <= 1 && colour !== ''),
           `generated tokens are not coloured by their probability: ${JSON.stringify(shades)}`);
    const [download] = await Promise.all([first.page.waitForEvent('download'), first.page.click('#download')]);
    const records = fs.readFileSync(await download.path(), 'utf8').trim().split('\n').map(JSON.parse);
    expect(records.length === 12 && records.every((r, i) => r.step === i && r.attention.length > 0 &&
                                                   r.top.length === 8 && typeof r.text === 'string'),
           `the downloaded trace is not one record per token: ${records.length} records`);
    expect(records.map((r) => r.text).join('') === text.slice('The '.length),
           'the downloaded trace spells another text than the page shows');
    await first.page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await first.page.click('#copy');
    await first.page.waitForFunction(() => document.getElementById('export-status').textContent !== '');
    const copied = await first.page.evaluate(() => navigator.clipboard.readText());
    expect(copied === text, `the clipboard holds ${JSON.stringify(copied)}`);
    const address = first.page.url();
    expect(address.includes('seed=4242') && address.includes('topP=0.9'), `the address lost the settings: ${address}`);
    await screenshot(first.page, 'seed_in_url');

    const second = await openPage(browser, address);
    await ready(second.page);
    await runToEnd(second.page);
    const again = await second.page.locator('#tokens').textContent();
    expect(again === text, `the shared address ran another text:\n${text}\n${again}`);

    await configure(second.page, { length: 6 });
    await second.page.fill('#seed', '');
    const drawn = await runToEnd(second.page);
    const seed = new URL(second.page.url()).searchParams.get('seed');
    expect(/^\d+$/.test(seed) && drawn.includes(`seed ${seed}`),
           `a drawn seed is not in the address and the status: ${seed}, ${drawn}`);
    await expectSettled(second.page);
    return { problems: [...first.problems, ...second.problems] };
  },

  // A browser without WebGPU gets a plain explanation instead of a broken page.
  // Without WebGPU the page says so plainly and runs the model on the CPU backend instead
  // (WebAssembly, in a worker): text is generated and traced, the page stays responsive while it
  // runs, and the surprise view scores on the CPU too.
  async no_webgpu({ browser, url }) {
    const session = await openPage(browser, url, {
      initScript: () => { delete Navigator.prototype.gpu; },
    });
    const { page } = session;
    await ready(page);
    const notice = await page.locator('#notice').textContent();
    expect(await page.locator('#notice').isVisible() && notice.includes('no WebGPU') &&
           notice.includes('runs on the CPU'), `no plain notice: ${notice}`);
    const status = await page.locator('#status').textContent();
    expect(status.includes('on the CPU') && !notice.includes(status),
           `the status does not say where the model runs: ${status}`);
    const cost = await page.locator('#cost').textContent();
    expect(cost.includes('no WebGPU') && cost.includes('parameters'), `odd cost panel: ${cost}`);

    await configure(page, { prompt: 'The ', temperature: 0.8, topK: 12, length: 24 });
    await page.evaluate(() => {
      // The longest gap between timer ticks while the model runs.
      window.__longestStall = 0;
      let last = performance.now();
      window.__stallTimer = setInterval(() => {
        const now = performance.now();
        window.__longestStall = Math.max(window.__longestStall, now - last);
        last = now;
      }, 10);
    });
    await runToEnd(page);
    const stall = await page.evaluate(() => {
      clearInterval(window.__stallTimer);
      return window.__longestStall;
    });
    expect(await generatedCount(page) === 24, `expected 24 generated tokens, saw ${await generatedCount(page)}`);
    const output = await page.locator('#tokens').textContent();
    expect(output.startsWith('The ') && output.length >= 'The '.length + 24, `odd output: ${output}`);
    expect(await inkedPixels(page) > 0, 'the heat map is blank');
    expect(stall < 400, `the page stalled for ${Math.round(stall)} ms while the model ran`);
    console.log(`longest main-thread stall while generating on the CPU: ${Math.round(stall)} ms`);
    await screenshot(page, 'no_webgpu');

    // Stop ends a long run: what it streamed stays, and the next run works.
    await configure(page, { length: 250 });
    await page.click('#run');
    await page.waitForFunction(() => document.querySelectorAll('#tokens .token:not(.prompt)').length >= 3,
                               null, { timeout: RUN_MS });
    await page.click('#stop');
    const stopped = await waitForState(page, ['done', 'error'], RUN_MS);
    expect(stopped.state === 'done' && stopped.text.includes('stopped'), `Stop did not end the run: ${stopped.text}`);
    await configure(page, { length: 4 });
    await runToEnd(page);
    expect(await generatedCount(page) === 4, 'no run after a stopped one');

    await page.click('#tab-surprise');
    await page.waitForFunction(() => ['done', 'error'].includes(
      document.getElementById('surprise-status').dataset.state), null, { timeout: RUN_MS });
    const scored = await page.locator('#surprise-stats').textContent();
    expect(scored.endsWith('on the CPU.'), `the surprise view did not score on the CPU: ${scored}`);
    await page.click('#tab-council');
    await page.waitForFunction(() => document.getElementById('council-status').dataset.state === 'error',
                               null, { timeout: READY_MS });
    const council = await page.locator('#council-status').textContent();
    expect(council.includes('needs WebGPU'), `the council view does not say why it is off: ${council}`);
    await expectSettled(page);
    return session;
  },
};

// A copy of the model folder whose weights are neither safetensors nor fzm.
function writeBadModel(directory) {
  fs.mkdirSync(directory, { recursive: true });
  for (const name of fs.readdirSync(path.join(site, 'model'))) {
    fs.copyFileSync(path.join(site, 'model', name), path.join(directory, name));
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(directory, 'manifest.json'), 'utf8'));
  fs.writeFileSync(path.join(directory, manifest.weights), 'this is not a tensor file, not even close');
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wgpt-web-'));
if (site) writeBadModel(path.join(scratch, 'bad-model'));
await runCheck({
  site, checks, checkName, script: 'web_page_test.mjs',
  mounts: { '/bad-model/': path.join(scratch, 'bad-model') },
  cleanup: () => fs.rmSync(scratch, { recursive: true, force: true }),
});
