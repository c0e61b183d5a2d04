// Scoring on the CPU backend in a worker (web/score_worker.js), with the Wgpt API's score():
// the page's choice where the WebGPU adapter is a software rasteriser (SwiftShader, llvmpipe),
// which runs the model slower than the CPU reference does — as `wgpt --backend auto` chooses
// natively. The worker holds its own copy of the model, loaded from the files on first use.
export class CpuScorer {
  #worker;
  #calls = new Map();  // id → {resolve, reject, onWindow}
  #nextId = 0;
  #loaded;

  // files: a promise of fetchModel()'s result; the weights' buffer moves to the worker.
  constructor(files) {
    this.#worker = new Worker(new URL('./score_worker.js', import.meta.url), { type: 'module' });
    this.#worker.onmessage = ({ data }) => this.#receive(data);
    this.#worker.onerror = (event) => this.#failAll(`the scoring worker failed: ${event.message}`);
    this.#loaded = files.then(({ weights, config, vocab, merges }) =>
      this.#call({ load: { weights, config, vocab, merges } }, [weights.buffer]));
  }

  // As Wgpt.score(): {tokens, meanBits, perplexity}; onWindow(done, total) per window.
  async score(text, k = 5, onWindow = null) {
    await this.#loaded;
    return this.#call({ text, k }, [], onWindow);
  }

  #call(message, transfer, onWindow = null) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject, onWindow });
      this.#worker.postMessage({ id, ...message }, transfer);
    });
  }

  #receive({ id, window, error, ...result }) {
    const call = this.#calls.get(id);
    if (!call) return;
    if (window) {
      call.onWindow?.(...window);
      return;
    }
    this.#calls.delete(id);
    if (error) call.reject(new Error(error));
    else call.resolve(result.info ?? result.scored);
  }

  #failAll(message) {
    for (const call of this.#calls.values()) call.reject(new Error(message));
    this.#calls.clear();
  }
}
