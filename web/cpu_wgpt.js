// The Wgpt API (web/wgpt.js) on the CPU backend, in a worker (web/cpu_worker.js): the page's model
// where the browser has no WebGPU, and the surprise view's scorer where the WebGPU adapter is a
// software rasteriser (SwiftShader, llvmpipe), which runs the model slower than the WebAssembly CPU
// reference does — as `wgpt --backend auto` chooses natively. The worker holds its own copy of the
// model, so a run keeps no thread of the page busy. Every call returns a promise, tokenize too.
export class CpuWgpt {
  #files;  // () => a promise of fetchModel()'s result
  #worker = null;
  #loaded = null;  // a promise of the worker's info(), while the worker lives
  #info = { adapter: null, backend: 'cpu', model: null };
  #calls = new Map();  // id → {resolve, reject, on: {text, trace, window}}
  #nextId = 0;
  #run = null;  // the generation in flight, as far as it streamed: what stop() resolves it with

  // files(): a promise of fetchModel()'s result; called again when a stopped run's worker is
  // replaced (the weights' buffer moves to the worker).
  constructor(files) {
    this.#files = files;
  }

  // Starts the worker and loads the model into it; resolves to info().
  async loadModel() {
    if (!this.#loaded) {
      this.#worker = new Worker(new URL('./cpu_worker.js', import.meta.url), { type: 'module' });
      this.#worker.onmessage = ({ data }) => this.#receive(data);
      this.#worker.onerror = (event) =>
        this.#failAll(`the CPU worker failed: ${event.message || 'it could not start'}`);
      this.#loaded = this.#files().then(({ weights, config, vocab, merges }) =>
        this.#call({ load: { weights, config, vocab, merges } }, [weights.buffer]));
    }
    this.#info = { ...(await this.#loaded), adapter: null, backend: 'cpu' };
    return this.#info;
  }

  // As Wgpt.info(), with adapter null and backend 'cpu'.
  info() {
    return this.#info;
  }

  async tokenize(text) {
    await this.loadModel();
    return this.#call({ tokenize: text });
  }

  async score(text, k = 5, onWindow = null) {
    await this.loadModel();
    return this.#call({ score: { text, k } }, [], { window: onWindow });
  }

  generate(prompt, options = {}, onText = () => {}) {
    return this.#generate(prompt, options, onText, null);
  }

  generateWithTrace(prompt, options = {}, onText = () => {}, onTrace = () => {}) {
    return this.#generate(prompt, { topN: 8, ...options }, onText, onTrace);
  }

  async greedyIds(prompt, n) {
    const result = await this.generate(prompt, { greedy: true, maxTokens: n });
    return { promptIds: result.promptIds, ids: result.ids };
  }

  async loadCouncil() {
    throw new Error('The council runs on WebGPU, which this browser does not have.');
  }

  // A worker running the model hears no message until the run ends, so stopping ends the worker:
  // the run resolves with what it streamed (stop 'stopped by caller'), and the next call starts
  // a new worker, which loads the model again.
  stop() {
    const run = this.#run;
    if (!run) return;
    this.#worker.terminate();
    this.#loaded = null;
    const now = performance.now();
    const firstAt = run.firstAt ?? now;
    run.resolve({
      promptIds: run.promptIds, ids: run.ids, text: run.text, stop: 'stopped by caller',
      promptTokens: run.promptIds.length, promptMs: firstAt - run.started,
      generatedTokens: run.ids.length, generateMs: now - firstAt,
    });
    this.#calls.delete(run.id);
    this.#failAll('the run was stopped');
  }

  async #generate(prompt, options, onText, onTrace) {
    const { signal, ...settings } = options;
    if (signal?.aborted) throw new Error('the run was aborted before it started');
    await this.loadModel();
    const abort = () => this.stop();
    signal?.addEventListener('abort', abort);
    // What the run streams, kept for stop(): the prompt's ids, and each step's chosen token
    // (traced runs; an untraced run's stop gives its text alone).
    const promptIds = (await this.tokenize(prompt)).map((token) => token.id);
    const run = { promptIds, ids: [], text: '', started: performance.now(), firstAt: null };
    const on = {
      text: (piece) => {
        run.text += piece;
        onText(piece);
      },
      trace: onTrace && ((step) => {
        if (step.step === 0) run.firstAt = performance.now();
        run.ids.push(step.chosen.id);
        onTrace(step);
      }),
    };
    try {
      return await new Promise((resolve, reject) => {
        run.resolve = resolve;
        run.id = this.#start({ generate: { prompt, options: settings, trace: Boolean(onTrace) } },
                             [], on, resolve, reject);
        this.#run = run;
      });
    } finally {
      this.#run = null;
      signal?.removeEventListener('abort', abort);
    }
  }

  #call(message, transfer = [], on = {}) {
    return new Promise((resolve, reject) => this.#start(message, transfer, on, resolve, reject));
  }

  #start(message, transfer, on, resolve, reject) {
    const id = this.#nextId++;
    this.#calls.set(id, { resolve, reject, on });
    this.#worker.postMessage({ id, ...message }, transfer);
    return id;
  }

  #receive({ id, error, result, ...event }) {
    const call = this.#calls.get(id);
    if (!call) return;
    if ('window' in event) call.on.window?.(...event.window);
    else if ('text' in event) call.on.text?.(event.text);
    else if ('trace' in event) call.on.trace?.(event.trace);
    else {
      this.#calls.delete(id);
      if (error !== undefined) call.reject(new Error(error));
      else call.resolve(result);
    }
  }

  #failAll(message) {
    for (const call of this.#calls.values()) call.reject(new Error(message));
    this.#calls.clear();
  }
}
