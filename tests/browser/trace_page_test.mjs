// The page `wgpt trace --html` writes, in headless Chromium (Debian's) driven by playwright-core:
// it renders from its own file alone, logs no errors, and hovering, clicking and keys change the
// view.
//
//   node tests/browser/trace_page_test.mjs PAGE STEPS TOP_N PROMPT_FRAGMENT [SCREENSHOT]
//
// Exits 1 naming every failed check.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [pagePath, stepsArg, topArg, promptFragment, screenshot] = process.argv.slice(2);
const { chromium } = await import(
  pathToFileURL(path.join(root, '.deps/npm/playwright-core/index.mjs')).href);
const expectedSteps = Number(stepsArg);
const expectedTop = Number(topArg);

const failures = [];
function expect(condition, message) {
  if (!condition) failures.push(message);
}

const browser = await chromium.launch({
  executablePath: process.env.WGPT_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  const pageUrl = pathToFileURL(path.resolve(pagePath)).href;
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Self-contained: the page itself is the only thing it may load.
  page.on('request', (request) => {
    if (request.url() !== pageUrl) problems.push(`the page requested ${request.url()}`);
  });
  await page.goto(pageUrl);

  const detailStep = () => page.locator('#detail').getAttribute('data-step');
  const title = () => page.locator('#step-title').textContent();
  // Non-white heat-map pixels and a digest of them, to see that a redraw changed something.
  const heatmap = () => page.evaluate(() => {
    const canvas = document.getElementById('heatmap');
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let inked = 0, digest = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i] < 250 || pixels[i + 1] < 250) ++inked;
      digest = (digest * 31 + pixels[i] + 7 * pixels[i + 1]) % 1000000007;
    }
    return { width: canvas.width, inked, digest };
  });
  const tints = () => page.$$eval('#tokens .token', (spans) => spans.map((s) => s.style.background));

  // It renders: every token, the first step shown, a drawn heat map, a shortlist.
  const generated = page.locator('#tokens .token.generated');
  expect(await generated.count() === expectedSteps,
         `${await generated.count()} generated tokens shown, expected ${expectedSteps}`);
  expect((await page.locator('#tokens').textContent()).includes(promptFragment),
         `the prompt text is not shown intact (looked for ${JSON.stringify(promptFragment)})`);
  expect(await detailStep() === '0', `the first step is not shown at load: ${await detailStep()}`);
  const first = await heatmap();
  expect(first.inked > 0, 'the heat map is blank');
  expect(await page.locator('#shortlist .bar').count() === expectedTop,
         `the shortlist has ${await page.locator('#shortlist .bar').count()} bars, expected ${expectedTop}`);

  // A click on a generated token shows its step: title, heat map (one more key), shortlist.
  await generated.nth(3).click();
  expect(await detailStep() === '3', `clicking token 3 showed step ${await detailStep()}`);
  expect((await title()).startsWith('Step 3:'), `title after the click: ${await title()}`);
  const third = await heatmap();
  expect(third.width > first.width && third.digest !== first.digest,
         'the heat map did not change with the step');
  expect(await page.locator('#tokens .token.selected').count() === 1, 'no token marked chosen');

  // Hovering shows another step; leaving the text goes back to the clicked one.
  await generated.nth(1).hover();
  expect(await detailStep() === '1', `hovering token 1 showed step ${await detailStep()}`);
  await page.mouse.move(1270, 880);
  expect(await detailStep() === '3', `leaving the text did not return to step 3: ${await detailStep()}`);

  // A click on a heat-map row tints the text by that head; a second click restores the mean.
  const meanTints = await tints();
  const box = await page.locator('#heatmap').boundingBox();
  const rowHeight = box.height / await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('trace-data').textContent);
    return data.model.n_layer * data.model.n_head;
  });
  await page.mouse.click(box.x + box.width - 4, box.y + rowHeight * 1.5);
  expect((await page.locator('#head-choice').textContent()).includes('layer 0, head 1'),
         `the head choice reads: ${await page.locator('#head-choice').textContent()}`);
  expect(JSON.stringify(await tints()) !== JSON.stringify(meanTints),
         'choosing a head did not change the tint of the text');
  await page.mouse.click(box.x + box.width - 4, box.y + rowHeight * 1.5);
  expect(JSON.stringify(await tints()) === JSON.stringify(meanTints),
         'a second click did not restore the mean tint');

  // Keys: the arrow moves to the next step.
  await generated.nth(3).focus();
  await page.keyboard.press('ArrowRight');
  expect(await detailStep() === '4', `ArrowRight from step 3 showed step ${await detailStep()}`);

  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  for (const problem of problems) failures.push(problem);
} finally {
  await browser.close();
}

if (failures.length) {
  for (const failure of failures) console.log(`FAIL: ${failure}`);
  process.exit(1);
}
console.log('trace page: all checks passed');
