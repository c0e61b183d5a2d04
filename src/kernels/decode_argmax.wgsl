// Decode step, last kernel: the greedy choice among the LM head's per-workgroup candidates
// [candidates, 3] (value bits, index, and a sum the probe reads) — the largest logit, the lowest
// index on ties, as HF — written into the step buffer [position, token] with the position
// advanced, and the next step's input x = wte[token] + wpe[position] (its embedding), so the next
// step needs nothing from the host. One workgroup of 256 threads; the table is stored as DTYPE.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  candidates: u32,
  width: u32,
  n_ctx: u32,
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> best: array<u32>;
@group(0) @binding(2) var<storage, read> wte: array<wte_word>;
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<storage, read_write> step: array<u32>;
@group(0) @binding(5) var<storage, read_write> x: array<f32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "load8_{DTYPE}.wgsl" for wte

@compute @workgroup_size(256)
fn main(invocation: Invocation) {
  reduce_begin(invocation);
  // Read by every thread before worker 0 advances it (workgroup_best's barriers are between).
  let position = step[0] + 1u;
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  // Candidates come in increasing index order per thread: `better` keeps the lowest on ties.
  for (var c = worker; c < params.candidates; c += 256u) {
    let candidate = bitcast<f32>(best[c * 3u]);
    let at = best[c * 3u + 1u];
    if (better(candidate, at, value, index)) {
      value = candidate;
      index = at;
    }
  }
  let token = workgroup_best(value, index).y;
  if (worker == 0u) {
    step[1] = token;
    step[0] = position;
  }
  if (position < params.n_ctx) {
    for (var i = worker; i < params.width; i += 256u) {
      x[i] = wte_at(token * params.width + i) + wpe[position * params.width + i];
    }
  }
}
