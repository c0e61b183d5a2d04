// llama.cpp, compiled to WebAssembly (npm @wllama/wllama, pinned in scripts/setup.sh), runs GGUF
// files that `wgpt convert` wrote (F32, Q8_0, Q4_0), in headless Chromium on its CPU backend; its
// greedy tokens must be the ones wgpt generates from the same file.
//
//   node tests/browser/wllama_gguf_test.mjs WGPT_BINARY REPOSITORY
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startServer } from './web_server.mjs';

const [wgpt, root] = process.argv.slice(2);
const { chromium } = await import(
  pathToFileURL(path.join(root, '.deps/npm/playwright-core/index.mjs')).href);
// A random tiny model repeats itself soon, so several prompts make the comparison cover more tokens.
const PROMPTS = ['Hello, my dog is cute and it likes', 'The quick brown fox',
                 'In 1905, Albert Einstein published', 'Once upon a time, in a land far away',
                 'Paris is the capital of'];
const TOKENS = 16;

// The stored types whose files are compared: the exact one and llama.cpp's two block quantizations.
const DTYPES = ['f32', 'q8_0', 'q4_0'];

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'wgpt-wllama-'));
// wgpt's greedy continuations of each file.
const ours = {};
for (const dtype of DTYPES) {
  const model = path.join(scratch, `tiny-${dtype}.gguf`);
  execFileSync(wgpt, ['convert', '-m', path.join(root, 'tests/fixtures/hf/gpt2-tiny'), '-o', model,
                      '--dtype', dtype], { stdio: ['ignore', 'ignore', 'inherit'] });
  ours[dtype] = PROMPTS.map((prompt) => JSON.parse(execFileSync(
    wgpt, ['generate', '-m', model, '-p', prompt, '-n', String(TOKENS), '--greedy', '--json',
           '--backend', 'cpu'],
    { stdio: ['ignore', 'pipe', 'ignore'] })));
}
fs.writeFileSync(path.join(scratch, 'index.html'), `<!doctype html><meta charset="utf-8">
<script type="module">
import { Wllama } from '/wllama/index.js';
window.run = async (file, prompts, tokens) => {
  const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' });
  await wllama.loadModelFromUrl(location.origin + '/' + file,
                                { n_ctx: 128, n_threads: 1, n_gpu_layers: 0, useCache: false });
  const replies = [];
  for (const prompt of prompts) {
    const reply = await wllama.createCompletion({ prompt, max_tokens: tokens, temperature: 0,
                                                  logprobs: 1 });
    const choice = reply.choices[0];
    replies.push({ text: choice.text, pieces: choice.logprobs ? choice.logprobs.tokens : null });
  }
  await wllama.exit();
  return replies;
};
window.ready = true;
</script>`);

const server = await startServer({
  '/wllama/': path.join(root, '.deps/npm/@wllama/wllama/esm'),
  '/': scratch,
});
const browser = await chromium.launch({
  executablePath: process.env.WGPT_CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
let failed = false;
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.log(`page error: ${error.message}`));
  await page.goto(`${server.url}/index.html`);
  await page.waitForFunction(() => window.ready === true, null, { timeout: 60_000 });
  for (const dtype of DTYPES) {
    const theirs = await page.evaluate(([file, prompts, tokens]) => window.run(file, prompts, tokens),
                                       [`tiny-${dtype}.gguf`, PROMPTS, TOKENS]);
    PROMPTS.forEach((prompt, i) => {
      const mine = ours[dtype][i];
      console.log(`${dtype} ${JSON.stringify(prompt)}\n  wgpt:   ${JSON.stringify(mine.text)}\n` +
                  `  wllama: ${JSON.stringify(theirs[i].text)}`);
      if (theirs[i].text !== mine.text) {
        console.log('FAIL: llama.cpp (wllama) and wgpt continue this prompt differently');
        failed = true;
      }
      if (theirs[i].pieces && theirs[i].pieces.length !== mine.ids.length) {
        console.log(`FAIL: wllama gave ${theirs[i].pieces.length} tokens, wgpt ${mine.ids.length}`);
        failed = true;
      }
    });
  }
} finally {
  await browser.close();
  await server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
}
if (failed) process.exit(1);
console.log(`llama.cpp in Chromium (wllama) and wgpt agree on ${TOKENS} greedy tokens after each of ` +
            `${PROMPTS.length} prompts, with the weights in ${DTYPES.join(', ')}`);
