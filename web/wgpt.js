// wgpt in the browser: the C++ runtime compiled to WebAssembly, running GPT-2 on WebGPU.
// Every call that touches the GPU returns a promise; errors reject with the library's message.
//
//   import { createWgpt, fetchModel } from './wgpt.js';
//   const wgpt = await createWgpt();
//   await wgpt.loadModel(await fetchModel('model/'));
//   await wgpt.generate('ROMEO:', { maxTokens: 40, temperature: 0.8 }, (text) => show(text));

import createWgptModule from './wgpt_wasm.js';

// True when this browser exposes WebGPU at all (an adapter may still be missing).
export function hasWebGPU() {
  return typeof navigator !== 'undefined' && 'gpu' in navigator;
}

// Wraps a node-style callback API (done(error, value)) in a promise.
function settle(start) {
  return new Promise((resolve, reject) => {
    start((error, value) => (error ? reject(new Error(error)) : resolve(value)));
  });
}

// A synchronous binding result: the value, or {error} thrown as an Error.
function unwrap(value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'error' in value) {
    throw new Error(value.error);
  }
  return value;
}

// XMLHttpRequest rather than fetch: it reports download progress without reading the body as a
// stream (which Chromium's network log shows as an aborted request even when it completes).
function fetchBytes(url, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('GET', url);
    request.responseType = 'arraybuffer';
    request.onprogress = (event) => onProgress?.(event.loaded, event.lengthComputable ? event.total : 0);
    request.onload = () => (request.status === 200
      ? resolve(new Uint8Array(request.response))
      : reject(new Error(`${url}: HTTP ${request.status}`)));
    request.onerror = () => reject(new Error(`${url}: the download failed`));
    request.send();
  });
}

async function fetchText(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

// Fetches a model folder laid out by `make web` (manifest.json naming config, vocabulary, merges
// and weights). onProgress(received, total) follows the weights' download.
export async function fetchModel(baseUrl, { onProgress } = {}) {
  const base = new URL(baseUrl, document.baseURI);
  const manifest = JSON.parse(await fetchText(new URL('manifest.json', base)));
  const [config, vocab, merges, weights] = await Promise.all([
    fetchText(new URL(manifest.config, base)),
    fetchText(new URL(manifest.vocab, base)),
    manifest.merges ? fetchText(new URL(manifest.merges, base)) : '',
    fetchBytes(new URL(manifest.weights, base), onProgress),
  ]);
  return { name: manifest.name, manifest, config, vocab, merges, weights };
}

class Wgpt {
  #module;

  constructor(module) {
    this.#module = module;
  }

  // { adapter: {vendor, architecture, device, description, backend, isCpu},
  //   model: {nLayer, nHead, nEmbd, nCtx, vocabSize, parameters, tokenizer, weightBytes, format} | null }
  info() {
    return this.#module.info();
  }

  // weights: the bytes of model.safetensors or model.fzm (told apart by content); config: the
  // text of config.json; vocab: vocab.json; merges: merges.txt for a BPE model, '' for a
  // character model. Resolves to info().
  async loadModel({ weights, config, vocab, merges = '' }) {
    const bytes = weights instanceof Uint8Array ? weights : new Uint8Array(weights);
    const text = (value) => (typeof value === 'string' ? value : JSON.stringify(value));
    return unwrap(this.#module.loadModel(bytes, text(config), text(vocab), merges));
  }

  // [{id, text}] for each token of `text`.
  tokenize(text) {
    return unwrap(this.#module.tokenize(text));
  }

  // Streams generated text to onText(piece). options: {maxTokens, temperature, topK, topP, minP,
  // repeatPenalty, presencePenalty, frequencyPenalty, repeatLastN, logitBias ({tokenId: bias};
  // -Infinity bans a token), seed, greedy, signal (an AbortSignal that stops the run)} — as
  // `wgpt generate`'s flags, the same tokens for the same seed; each token after the first is
  // chosen on the GPU. Options the model cannot use reject with the reason. Resolves to
  // {promptIds, ids, text, stop, promptMs, promptTokens, generateMs, generatedTokens}.
  generate(prompt, options = {}, onText = () => {}) {
    return this.#run(prompt, options, onText, null);
  }

  // generate() plus onTrace(step) once per step, prefill included: {step, qLen, kvLen, nHead,
  // attention: per layer a Float32Array [nHead, qLen, kvLen] of the probabilities used,
  // top: [{id, text, p}] (options.topN of them, before temperature and top-k), chosen: {id, text}}.
  generateWithTrace(prompt, options = {}, onText = () => {}, onTrace = () => {}) {
    return this.#run(prompt, { topN: 8, ...options }, onText, onTrace);
  }

  // Greedy ids, as `wgpt generate --greedy --json` gives them natively.
  async greedyIds(prompt, n) {
    const result = await this.generate(prompt, { greedy: true, maxTokens: n });
    return { promptIds: result.promptIds, ids: result.ids };
  }

  // How surprising each token of `text` is: {tokens: [{id, text, bits, alternatives: [{id, text,
  // p}]}], meanBits, perplexity}; the first token has no prediction (bits null).
  score(text, k = 5) {
    return settle((done) => this.#module.score(text, k, done));
  }

  // Stops the current run after its step in flight; its promise resolves with stop 'stopped by caller'.
  stop() {
    this.#module.stop();
  }

  async #run(prompt, options, onText, onTrace) {
    const { signal, ...settings } = options;
    if (signal?.aborted) throw new Error('the run was aborted before it started');
    const abort = () => this.stop();
    signal?.addEventListener('abort', abort);
    try {
      return await settle((done) =>
        this.#module.generate(prompt, { greedy: false, ...settings }, onText, onTrace, done));
    } finally {
      signal?.removeEventListener('abort', abort);
    }
  }
}

// Loads the WebAssembly module and opens a WebGPU device. onDeviceLost(message) is called if the
// browser later takes the device away (every call after that rejects).
export async function createWgpt({ onDeviceLost } = {}) {
  const module = await createWgptModule();
  module.onDeviceLost = (message) => onDeviceLost?.(message);
  await settle((done) => module.init(done));
  return new Wgpt(module);
}
