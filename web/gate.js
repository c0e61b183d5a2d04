// The page's ?gate mode: greedy and sampled decoding in the browser must give, token for token,
// the ids the native tool wrote (`wgpt generate --greedy --json`, gate_expected.json, and the same
// with the manifest's sampling settings, gate_sampled.json, beside the model).

function sameIds(a, b) {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

// Shows the outcome in `element` and the page title (what the browser test reads).
export function reportGate(element, pass, message) {
  element.hidden = false;
  element.dataset.result = pass ? 'pass' : 'fail';
  element.textContent = `Gate ${pass ? 'PASS' : 'FAIL'}: ${message}`;
  document.title = pass ? 'GATE PASS' : 'GATE FAIL';
  return pass;
}

async function fetchJson(name, modelUrl) {
  const response = await fetch(new URL(name, new URL(modelUrl, document.baseURI)));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return response.json();
}

// Why the browser's run differs from the native one, or null when it does not.
function difference(what, browser, native) {
  if (!sameIds(browser.promptIds, native.prompt_ids)) {
    return `the prompt encodes differently: [${browser.promptIds}] here, ` +
           `[${native.prompt_ids}] natively`;
  }
  if (sameIds(browser.ids, native.ids)) return null;
  const first = browser.ids.findIndex((id, i) => id !== native.ids[i]);
  return `${what} token ${first < 0 ? browser.ids.length : first} differs: ` +
         `[${browser.ids}] here, [${native.ids}] natively`;
}

// Runs the gate and reports it. Returns true on a pass.
export async function runGate(wgpt, manifest, modelUrl, element) {
  const report = (pass, message) => reportGate(element, pass, message);
  const gate = manifest.gate;
  if (!gate?.expected || !gate?.sampled) {
    return report(false, 'this build has no native reference (build it with make web)');
  }
  let greedyNative, sampledNative;
  try {
    [greedyNative, sampledNative] = await Promise.all(
      [fetchJson(gate.expected, modelUrl), fetchJson(gate.sampled, modelUrl)]);
  } catch (error) {
    return report(false, error.message);
  }
  const greedy = await wgpt.greedyIds(gate.prompt, gate.tokens);
  const sampled = await wgpt.generate(gate.prompt, { ...gate.sampling, maxTokens: gate.tokens });
  const problem = difference('greedy', greedy, greedyNative) ||
                  difference('sampled', sampled, sampledNative);
  if (problem) return report(false, problem);
  return report(true, `${greedy.ids.length} greedy and ${sampled.ids.length} sampled tokens ` +
                      `(${JSON.stringify(gate.sampling)}) from ${JSON.stringify(gate.prompt)} ` +
                      'agree with the native runs, token for token');
}
