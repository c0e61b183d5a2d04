// Decode step, last kernel: the greedy choice among the LM head's per-workgroup candidates
// [candidates, 3] (value bits, index, and a sum the probe reads) — the largest logit, the lowest index on ties, as HF —
// written into the step buffer [position, token] with the position advanced, so the next step
// needs nothing from the host.
struct Params {
  candidates: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> best: array<u32>;
@group(0) @binding(2) var<storage, read_write> step: array<u32>;

//! include "decode_best.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32) {
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  for (var c = local; c < params.candidates; c += 256u) {
    let candidate = bitcast<f32>(best[c * 3u]);
    let at = best[c * 3u + 1u];
    // Candidates come in increasing index order per thread: strict > keeps the lowest on ties.
    if (at != 0xffffffffu && (index == 0xffffffffu || candidate > value)) {
      value = candidate;
      index = at;
    }
  }
  best_reduce(local, value, index);
  if (local == 0u) {
    step[1] = best_index[0];
    step[0] = step[0] + 1u;
  }
}
