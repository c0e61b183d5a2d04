// Decode step, attention part 2 of 2, fused with the output projection: every workgroup merges
// the chunks' softmax statistics of every head (rescaling each chunk by exp(its max − the
// overall max)) into the merged head outputs z [n_head·head_dim], staged in workgroup memory as
// the product's input, then adds z · W + b into the residual stream x in place. Merging per
// workgroup costs a few KB of cached reads and saves a dispatch per layer.
// Workgroups g, g + groups, ... also turn head g's raw scores into the probabilities the probe
// reads; every layer's go to one buffer packed as [n_layer, n_head, kv_len] for this step's
// kv_len, so a probed step reads them as one region.
// Thread layout: lib/decode_gemv.wgsl (n8 = width / 8 column groups); the first n_head threads
// merge a head's statistics each. width is a multiple of 8 up to 2048, n_head at most 64.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  k: u32,   // width
  n8: u32,  // width / 8
  tx: u32,
  head_dim: u32,
  n_ctx: u32,
  chunks: u32,  // ceil(n_ctx / 64)
  layer: u32,
  n_head: u32,
  strips: u32,  // the weights in column strips (wgpt::Layout), else row-major
}

const REDUCE_THREADS: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> partials: array<f32>;
@group(0) @binding(3) var<storage, read> scores: array<f32>;
@group(0) @binding(4) var<storage, read> weight: array<weight_word>;
@group(0) @binding(5) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> patterns: array<f32>;
@group(0) @binding(7) var<storage, read_write> x: array<vec4<f32>>;

//! include "reduce_{REDUCE}.wgsl"
//! include "decode_stage.wgsl"
//! include "decode_gemv.wgsl"
//! include "decode_gemv_residual.wgsl"

var<workgroup> head_largest: array<f32, 64>;
var<workgroup> head_total: array<f32, 64>;

fn chunks_used() -> u32 {
  return (step[0] + 64u) / 64u;  // ceil(kv_len / 64), kv_len = position + 1
}

// The chunks are read MERGE at a time, all of a block's loads in flight together (a loop that
// loaded one chunk and used it before the next made a chain of dependent round trips: at 257
// keys, five chunks, ten for a head's statistics and five per merged value).
const MERGE: u32 = 8u;

// Chunks c0 .. c0 + MERGE − 1 of a head whose partials start at `first`: each chunk's maximum
// and its partial at `offset` (1: its exp-sum; 2 + i: output i), the offset's value 0 for a chunk
// past the last one used (its maximum is the last one's, so it changes no maximum either).
fn chunk_block(first: u32, c0: u32, used: u32, offset: u32) -> array<vec2<f32>, MERGE> {
  var block: array<vec2<f32>, MERGE>;
  for (var j = 0u; j < MERGE; j++) {
    let at = first + min(c0 + j, used - 1u) * (params.head_dim + 2u);
    block[j] = vec2<f32>(partials[at], select(0.0, partials[at + offset], c0 + j < used));
  }
  return block;
}

// Each head's overall maximum and softmax normaliser, then z (merged chunk outputs) staged and
// published.
fn stage_input() {
  let d = params.head_dim;
  let used = chunks_used();
  if (worker < params.n_head) {
    let first = worker * params.chunks * (d + 2u);
    var largest = bitcast<f32>(0xff7fffffu);
    var total = 0.0;
    for (var c0 = 0u; c0 < used; c0 += MERGE) {
      let block = chunk_block(first, c0, used, 1u);
      var block_largest = largest;
      for (var j = 0u; j < MERGE; j++) {
        block_largest = max(block_largest, block[j].x);
      }
      total *= exp(largest - block_largest);  // earlier blocks rescaled to the new maximum
      for (var j = 0u; j < MERGE; j++) {
        total += block[j].y * exp(block[j].x - block_largest);
      }
      largest = block_largest;
    }
    head_largest[worker] = largest;
    head_total[worker] = total;
  }
  workgroupBarrier();
  for (var row = worker; row < params.k; row += 256u) {
    let head = row / d;
    var sum = 0.0;
    for (var c0 = 0u; c0 < used; c0 += MERGE) {
      let block = chunk_block(head * params.chunks * (d + 2u), c0, used, 2u + row % d);
      for (var j = 0u; j < MERGE; j++) {
        sum += block[j].y * exp(block[j].x - head_largest[head]);
      }
    }
    staged[row] = sum / head_total[head];
  }
  workgroupBarrier();  // publishes `staged`
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  reduce_begin(invocation);
  add_gemv_to_residual(group.x);
  let kv_len = step[0] + 1u;
  for (var head = group.x; head < params.n_head; head += groups.x) {
    let row = head * params.n_ctx;
    let out = (params.layer * params.n_head + head) * kv_len;
    for (var j = worker; j < kv_len; j += 256u) {
      patterns[out + j] = exp(scores[row + j] - head_largest[head]) / head_total[head];
    }
  }
}
