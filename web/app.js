// The page's controller: loads the model, runs it as the controls say, and feeds the panels.
// ?model=URL loads another model folder (one laid out by `make web`); ?gate runs the gate. The
// settings live in the address too (run_settings.js), so a run can be shared and repeated.
import { createWgpt, fetchModel, hasWebGPU } from './wgpt.js';
import { CpuWgpt } from './cpu_wgpt.js';
import { AttentionStore, HeatMap } from './attention.js';
import { adapterName, showCost } from './cost.js';
import { bindExport, enableExport } from './export.js';
import { reportGate, runGate } from './gate.js';
import { readSettings, showSettings, writeSettings } from './run_settings.js';
import { showShortlist } from './shortlist.js';
import { TokenStrip } from './tokens.js';
import { CouncilView } from './council.js';
import { SurpriseView } from './surprise.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const modelUrl = params.get('model') || 'model/';

const controls = {
  prompt: $('prompt'), temperature: $('temperature'), topK: $('top-k'), topP: $('top-p'),
  seed: $('seed'), length: $('length'), run: $('run'), stop: $('stop'),
};
const heatMap = new HeatMap($('heatmap'), $('attention-caption'));
const attention = new AttentionStore();
let steps = [];       // the probe's trace per generated token, by token index
let labels = [];      // every token's text, by position
let wgpt = null;
let info = null;
let runStats = null;
let runs = 0;        // the first run's prefill also compiles the GPU kernels
const tokens = new TokenStrip($('tokens'), showToken);
// The other views (#council, #surprise), each in its own module; ?council=URL loads another council.
const councilView = new CouncilView($('council-view'), {
  getWgpt: () => wgpt, url: params.get('council') || 'council/',
});
const surpriseView = new SurpriseView($('surprise-view'), { modelFiles: () => fetchModel(modelUrl) });
// Without WebGPU the page's model runs on the CPU backend, in a worker (cpu_wgpt.js).
const onCpu = !hasWebGPU();
const VIEWS = ['generate', 'council', 'surprise'];

function showView() {
  const name = VIEWS.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'generate';
  for (const view of VIEWS) {
    $(`${view}-view`).hidden = view !== name;
    if (view === name) $(`tab-${view}`).setAttribute('aria-current', 'page');
    else $(`tab-${view}`).removeAttribute('aria-current');
  }
  // Each view loads or scores only once opened, so it never holds the device while another runs.
  if (name === 'council' && info?.model) councilView.show();
  if (name === 'surprise' && info?.model) surpriseView.show(wgpt);
}

function setStatus(text, state) {
  const status = $('status');
  status.textContent = text;
  status.dataset.state = state;
  document.body.setAttribute('aria-busy', String(state === 'loading' || state === 'running'));
}

// A problem the page cannot go on from: said plainly, with nothing left spinning.
function fail(message) {
  setStatus(message, 'error');
  $('progress').hidden = true;
  controls.stop.disabled = true;
  controls.run.disabled = !wgpt || !info?.model;
}

function showNotice(message) {
  const notice = $('notice');
  notice.textContent = message;
  notice.hidden = false;
}

function showToken(index) {
  if (index < 0) {
    heatMap.clear('No tokens yet.');
    return;
  }
  showShortlist($('shortlist'), $('shortlist-caption'), steps[index]);
  const row = attention.row(index - 1);
  if (row) heatMap.draw(row, index - 1, labels);
  else heatMap.clear(index === 0 ? 'The first token has nothing before it to look at.' : 'No attention recorded for this token.');
}


async function run() {
  const prompt = controls.prompt.value;
  // Said at once: on the CPU backend even reading the prompt is a message to the worker.
  controls.run.disabled = true;
  setStatus('Reading the prompt…', 'running');
  let promptTokens;
  try {
    promptTokens = await wgpt.tokenize(prompt);
    if (promptTokens.length === 0) throw new Error('the prompt is empty: type something first');
  } catch (error) {
    fail(error.message);
    return;
  }
  tokens.clear();
  attention.clear();
  steps = [];
  enableExport($('copy'), $('download'), false);
  labels = promptTokens.map((token) => token.text);
  for (const token of promptTokens) tokens.add(token.text, { prompt: true });
  controls.stop.disabled = false;
  const options = readSettings(controls, info.model.nCtx);
  writeSettings(prompt, options);
  // The first run's prefill also compiles every GPU kernel: say so, or it looks stalled.
  const compiling = runs++ === 0 && !onCpu;
  setStatus(compiling ? 'Compiling the GPU kernels (the first run only; 10–30 s)…'
                      : 'Reading the prompt…', 'running');
  const started = performance.now();
  let firstTokenAt = 0;
  runStats = { promptTokens: promptTokens.length, promptMs: 0, generatedTokens: 0, generateMs: 0,
               compiling };
  const onTrace = (step) => {
    attention.add(step);
    const now = performance.now();
    if (step.step === 0) {
      firstTokenAt = now;
      runStats.promptMs = now - started;
    } else {
      runStats.generateMs = now - firstTokenAt;
    }
    runStats.generatedTokens = step.step + 1;
    steps[labels.length] = step;
    labels.push(step.chosen.text);
    // The shortlist holds the top tokens; one picked from outside it had less than the last.
    const picked = step.top.find((candidate) => candidate.id === step.chosen.id);
    tokens.add(step.chosen.text, { probability: picked ? picked.p : 0 });
    setStatus(`Generating: ${runStats.generatedTokens} of ${options.maxTokens} tokens`, 'running');
    showCost($('cost'), info, runStats);
  };
  try {
    const result = await wgpt.generateWithTrace(prompt, options, () => {}, onTrace);
    // A step the run stopped at (or an end-of-text token) is traced but not kept.
    labels.length = promptTokens.length + result.ids.length;
    tokens.truncate(labels.length);
    runStats = { ...result, compiling: runStats.compiling };
    showCost($('cost'), info, runStats);
    enableExport($('copy'), $('download'), true);
    setStatus(`Done: ${result.generatedTokens} tokens (${result.stop}), seed ${options.seed}.`, 'done');
    controls.run.disabled = false;
    controls.stop.disabled = true;
  } catch (error) {
    fail(error.message);
  }
}

function bindControls() {
  const showTemperature = () => {
    const t = Number(controls.temperature.value);
    $('temperature-value').textContent = t === 0 ? '0 (greedy)' : t.toFixed(2);
  };
  controls.temperature.addEventListener('input', showTemperature);
  showTemperature();
  controls.run.addEventListener('click', run);
  bindExport($('copy'), $('download'),
             () => ({ text: $('tokens').textContent, steps: steps.slice(0, labels.length).filter(Boolean) }),
             (message) => { $('export-status').textContent = message; });
  controls.stop.addEventListener('click', () => {
    wgpt?.stop();
    setStatus('Stopping after the step in flight…', 'running');
  });
  document.addEventListener('keydown', (event) => {
    const generating = !$('generate-view').hidden;
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !controls.run.disabled && generating) {
      event.preventDefault();
      run();
    } else if (event.key === 'Escape' && !controls.stop.disabled) {
      controls.stop.click();
    }
  });
}

async function start() {
  bindControls();
  window.addEventListener('hashchange', showView);
  showView();
  heatMap.clear('Run the model to see where it looks.');
  if (onCpu) {
    showNotice('This browser has no WebGPU, so the model runs on the CPU instead (WebAssembly, in ' +
      'a worker): slower than on a GPU, and without the council, which needs WebGPU. A current ' +
      'Chrome, Edge or Safari (or Firefox with WebGPU enabled) runs it on your GPU.');
  }
  try {
    const progress = $('progress');
    let files = null;
    const fetchFiles = async () => {
      progress.hidden = false;
      files = await fetchModel(modelUrl, {
        onProgress: (received, total) => { if (total) progress.value = received / total; },
      });
      progress.hidden = true;
      return files;
    };
    const couldNotLoad = (error) => {
      throw new Error(`Could not load the model from ${modelUrl}: ${error.message}`);
    };
    if (onCpu) {
      setStatus(`Loading the model from ${modelUrl} onto the CPU…`, 'loading');
      wgpt = new CpuWgpt(fetchFiles);
      info = await wgpt.loadModel().catch(couldNotLoad);
    } else {
      setStatus('Starting WebGPU…', 'loading');
      wgpt = await createWgpt({
        onDeviceLost: (message) => {
          showNotice(`The GPU device was lost (${message}). Reload the page to start again.`);
          wgpt = null;
          fail('The GPU device was lost: reload the page to start again.');
        },
      });
      info = wgpt.info();
      showCost($('cost'), info, null);
      setStatus(`Loading the model from ${modelUrl}…`, 'loading');
      info = await wgpt.loadModel(await fetchFiles()).catch(couldNotLoad);
    }
    showCost($('cost'), info, null);
    controls.length.max = String(info.model.nCtx);
    if (!controls.prompt.value) controls.prompt.value = files.manifest.gate?.prompt || 'The ';
    showSettings(controls, params);
    const where = onCpu ? 'the CPU (WebAssembly: this browser has no WebGPU)' : adapterName(info.adapter);
    setStatus(`Ready: ${files.name} on ${where}.`, 'ready');
    controls.run.disabled = false;
    showView();
    if (params.has('gate')) {
      setStatus('Running the gate…', 'running');
      const pass = await runGate(wgpt, files.manifest, modelUrl, $('gate'));
      setStatus(pass ? 'Gate passed.' : 'Gate failed.', pass ? 'done' : 'error');
    }
  } catch (error) {
    // Said once: the notice explains, the status names the state.
    if (!wgpt) {
      showNotice(`WebGPU could not start here: ${error.message}`);
      fail('Cannot run without a working WebGPU adapter.');
    } else {
      fail(error.message);
    }
    if (params.has('gate')) reportGate($('gate'), false, error.message);
  }
}

start();
