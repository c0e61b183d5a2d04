// What the browser tests share: headless Chromium (Debian's, with a SwiftShader WebGPU adapter on a
// CPU-only machine) driven by playwright-core, pages that record every problem, and running one
// named check against the site folder served from 127.0.0.1.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from './web_server.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { chromium } = await import(
  pathToFileURL(path.join(root, '.deps/npm/playwright-core/index.mjs')).href);

export class CheckFailed extends Error {}

export function expect(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

// A page with every problem recorded: console errors, uncaught errors, failed requests, HTTP
// errors.
export async function openPage(browser, url, { initScript } = {}) {
  const page = await browser.newPage();
  const problems = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) =>
    problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  if (initScript) await page.addInitScript(initScript);
  await page.goto(url);
  return { page, problems };
}

// Runs checks[checkName]({browser, url, site}) with the site served at / (and `mounts`, more
// folders under URL prefixes), prints "NAME: pass" or the failure, and exits with its status. A
// check returns {problems}: any problem fails it; it may return {skipped: reason} instead.
export async function runCheck({ site, checks, checkName, script, mounts = {}, cleanup = () => {} }) {
  const check = checks[checkName];
  if (!site || !check) {
    console.error(`usage: ${script} SITE_FOLDER (${Object.keys(checks).join('|')})`);
    process.exit(2);
  }
  const server = await startServer({ '/': site, ...mounts });
  const browser = await chromium.launch({
    executablePath: process.env.WGPT_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--enable-unsafe-webgpu'],
  });
  let failure = null, skipped = null;
  try {
    const session = await check({ browser, url: `${server.url}/index.html`, site });
    skipped = session.skipped ?? null;
    if (session.problems?.length) failure = session.problems.join('\n');
  } catch (error) {
    failure = error instanceof CheckFailed ? error.message : error.stack;
  } finally {
    await browser.close();
    await server.close();
    cleanup();
  }
  console.log(`${checkName}: ${failure ? `FAIL\n${failure}` : skipped ? `skipped (${skipped})` : 'pass'}`);
  process.exit(failure ? 1 : 0);
}
