// The page's ?gate mode: greedy decoding in the browser must give, token for token, the ids the
// native tool wrote (`wgpt generate --greedy --json`, gate_expected.json beside the model).

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

// Runs the gate and reports it. Returns true on a pass.
export async function runGate(wgpt, manifest, modelUrl, element) {
  const report = (pass, message) => reportGate(element, pass, message);
  const gate = manifest.gate;
  if (!gate?.expected) {
    return report(false, 'this build has no native reference (build it with make web)');
  }
  const response = await fetch(new URL(gate.expected, new URL(modelUrl, document.baseURI)));
  if (!response.ok) return report(false, `${gate.expected}: HTTP ${response.status}`);
  const native = await response.json();
  const browser = await wgpt.greedyIds(gate.prompt, gate.tokens);
  if (!sameIds(browser.promptIds, native.prompt_ids)) {
    return report(false, `the prompt encodes differently: [${browser.promptIds}] here, ` +
                         `[${native.prompt_ids}] natively`);
  }
  const firstDifference = browser.ids.findIndex((id, i) => id !== native.ids[i]);
  if (!sameIds(browser.ids, native.ids)) {
    return report(false, `token ${firstDifference < 0 ? browser.ids.length : firstDifference} ` +
                         `differs: [${browser.ids}] here, [${native.ids}] natively`);
  }
  return report(true, `${browser.ids.length} greedy tokens from ${JSON.stringify(gate.prompt)} ` +
                      'agree with the native run, token for token');
}
