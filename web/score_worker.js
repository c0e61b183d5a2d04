// A worker that scores texts with the model on the CPU backend (the WebAssembly reference, no
// WebGPU), so that a long text keeps no thread of the page busy. web/cpu_scorer.js drives it:
//   {id, load: files}        → {id, info} once the model is loaded
//   {id, text, k}            → {id, window: [done, total]} after each window, then {id, scored}
// and {id, error} for a failure of either.
import { createWgptOnCpu } from './wgpt.js';

let wgpt = null;

self.onmessage = async ({ data }) => {
  const { id } = data;
  try {
    if (data.load) {
      wgpt = await createWgptOnCpu();
      self.postMessage({ id, info: await wgpt.loadModel(data.load) });
      return;
    }
    const onWindow = (done, total) => self.postMessage({ id, window: [done, total] });
    self.postMessage({ id, scored: await wgpt.score(data.text, data.k, onWindow) });
  } catch (error) {
    self.postMessage({ id, error: error.message });
  }
};
