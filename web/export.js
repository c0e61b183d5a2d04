// Taking a run away: its text to the clipboard, and its trace as NDJSON — one record per
// generated token with what `wgpt trace -o` writes natively: the step, the token, its text, the
// newest query's attention row per layer and head, and the shortlist.

// The record of one traced step (`step` as generateWithTrace's onTrace receives it).
export function traceRecord(step) {
  const { qLen, kvLen, nHead } = step;
  const attention = step.attention.map((pattern) => Array.from({ length: nHead }, (_, head) => {
    const start = (head * qLen + qLen - 1) * kvLen;
    return Array.from(pattern.subarray(start, start + kvLen), (p) => Number(p.toFixed(6)));
  }));
  return { step: step.step, token: step.chosen.id, text: step.chosen.text, kv_len: kvLen,
           attention, top: step.top };
}

// Wires the Copy and Download buttons: `run()` gives {text, steps} of the last run, or null.
export function bindExport(copyButton, downloadButton, run, say) {
  copyButton.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(run().text);
      say('Copied the text.');
    } catch (error) {
      say(`Could not copy: ${error.message}`);
    }
  });
  downloadButton.addEventListener('click', () => {
    const lines = run().steps.map((step) => `${JSON.stringify(traceRecord(step))}\n`);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob(lines, { type: 'application/x-ndjson' }));
    link.download = 'trace.ndjson';
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 0);
  });
}

// Enables the buttons once a run has something to take away.
export function enableExport(copyButton, downloadButton, enabled) {
  copyButton.disabled = downloadButton.disabled = !enabled;
}
