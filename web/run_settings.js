// A run's settings, read from the controls and kept in the page's address (?prompt=&temperature=
// &topK=&topP=&seed=&tokens=), so that a link repeats a run: the same settings and seed give the
// same tokens. A blank seed draws a new one per run; the address then holds the one drawn.

const KEYS = ['prompt', 'temperature', 'topK', 'topP', 'seed', 'tokens'];

// Puts the address's settings into the controls (after the model is loaded, for the context).
export function showSettings(controls, params) {
  const set = (control, key) => {
    if (params.has(key)) control.value = params.get(key);
  };
  set(controls.prompt, 'prompt');
  set(controls.temperature, 'temperature');
  controls.temperature.dispatchEvent(new Event('input'));
  set(controls.topK, 'topK');
  set(controls.topP, 'topP');
  set(controls.seed, 'seed');
  set(controls.length, 'tokens');
}

// The generate() options the controls ask for; Tokens is held to the model's context.
export function readSettings(controls, nCtx) {
  const temperature = Number(controls.temperature.value);
  const topP = Number(controls.topP.value);
  const seedText = controls.seed.value.trim();
  return {
    greedy: temperature === 0,
    temperature: Math.max(temperature, 0.01),
    topK: Math.max(0, Math.floor(Number(controls.topK.value) || 0)),
    topP: topP > 0 && topP <= 1 ? topP : 1,
    maxTokens: Math.min(nCtx, Math.max(1, Math.floor(Number(controls.length.value) || 1))),
    seed: seedText === '' ? Math.floor(Math.random() * 2 ** 31) : Math.floor(Number(seedText)),
    topN: 8,
  };
}

// Records a run's settings in the address (replacing the entry: no history per run).
export function writeSettings(prompt, options) {
  const url = new URL(location.href);
  const values = {
    prompt, temperature: options.greedy ? 0 : options.temperature, topK: options.topK,
    topP: options.topP, seed: options.seed, tokens: options.maxTokens,
  };
  for (const key of KEYS) url.searchParams.set(key, String(values[key]));
  history.replaceState(null, '', url);
}
