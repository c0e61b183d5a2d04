// The worker behind web/cpu_wgpt.js: the WebAssembly module on the CPU backend (no WebGPU), one
// model, one call at a time (a run holds the worker until it ends). Messages in and out:
//   {id, load: files}                        → {id, result: info}
//   {id, tokenize: text}                     → {id, result: tokens}
//   {id, score: {text, k}}                   → {id, window: [done, total]} per window, {id, result}
//   {id, generate: {prompt, options, trace}} → {id, text} per piece, {id, trace} per step (traced
//                                              runs), {id, result}
// and {id, error: message} for a call that failed.
import { createWgptOnCpu } from './wgpt.js';

let wgpt = null;

async function answer(data, send) {
  if (data.load) {
    wgpt = await createWgptOnCpu();
    return wgpt.loadModel(data.load);
  }
  if (!wgpt) throw new Error('no model is loaded');
  if ('tokenize' in data) return wgpt.tokenize(data.tokenize);
  if (data.score) {
    return wgpt.score(data.score.text, data.score.k, (done, total) => send({ window: [done, total] }));
  }
  if (data.generate) {
    const { prompt, options, trace } = data.generate;
    const onText = (text) => send({ text });
    return trace ? wgpt.generateWithTrace(prompt, options, onText, (step) => send({ trace: step }))
                 : wgpt.generate(prompt, options, onText);
  }
  throw new Error(`the CPU worker does not know the call ${JSON.stringify(Object.keys(data))}`);
}

self.onmessage = async ({ data }) => {
  const send = (message) => self.postMessage({ id: data.id, ...message });
  try {
    send({ result: await answer(data, send) });
  } catch (error) {
    send({ error: error.message });
  }
};
