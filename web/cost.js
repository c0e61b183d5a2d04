// "What it costs": decode speed, prefill time, the adapter and the model's size.

function bytes(n) {
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

function count(n) {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} k`;
  return String(n);
}

export function adapterName(adapter) {
  const name = [adapter.vendor, adapter.architecture, adapter.device, adapter.description]
    .filter(Boolean).join(' ') || 'an unnamed adapter';
  return adapter.isCpu ? `${name} (software: runs on the CPU)` : name;
}

// info: the API's info(); run: {promptTokens, promptMs, generatedTokens, generateMs, compiling}
// so far (compiling: the first run, whose prefill includes compiling the kernels).
export function showCost(list, info, run) {
  const none = info.backend === 'cpu' ? 'none (this browser has no WebGPU): the CPU backend, WebAssembly' : '—';
  const rows = [['Adapter', info.adapter ? adapterName(info.adapter) : none]];
  if (info.model) {
    const m = info.model;
    rows.push(['Model', `${count(m.parameters)} parameters: ${m.nLayer} layers, ${m.nHead} heads, ` +
                        `${m.nEmbd} wide, ${m.nCtx} positions, ${m.vocabSize} ${m.tokenizer} tokens`]);
    rows.push(['Weights', `${bytes(m.weightBytes)} as ${m.format} (${bytes(4 * m.parameters)} as f32)`]);
  }
  if (run?.promptTokens) {
    rows.push(['Prefill', `${run.promptTokens} tokens in ${run.promptMs.toFixed(1)} ms ` +
                          `(${((1000 * run.promptTokens) / Math.max(run.promptMs, 1e-3)).toFixed(0)} tokens/s)` +
                          (run.compiling ? ', compiling the GPU kernels on this first run' : '')]);
  }
  if (run?.generatedTokens > 1 && run.generateMs > 0) {
    rows.push(['Decode', `${((1000 * (run.generatedTokens - 1)) / run.generateMs).toFixed(1)} tokens/s ` +
                         `(${run.generatedTokens} tokens)`]);
  }
  list.replaceChildren(...rows.flatMap(([term, value]) => {
    const dt = document.createElement('dt');
    dt.textContent = term;
    const dd = document.createElement('dd');
    dd.textContent = value;
    return [dt, dd];
  }));
}
