// Decode step: the final LayerNorm and the tied LM head, logits[v] = LN_f(x) · wte[v], and each
// workgroup's greedy candidate. The token table is [vocab, width] (stored as DTYPE), so each logit
// is a dot product over a contiguous row: 8 threads share a row, each reading eight elements at a
// time, 32 rows a tile, TILES tiles (kHeadRows = 128 tokens) a workgroup. A workgroup computes the
// LayerNorm once for its tiles and meets its threads once, for the candidate — its largest logit,
// the lowest index on ties — which goes to `best` [workgroups, 3] for decode_argmax to finish,
// with the workgroup's Σ exp(logit − its largest) for the probe. (One tile a workgroup, each
// computing the LayerNorm and meeting for its candidate, took 36.7 µs on the H200 for GPT-2.)
// 256 threads; width is a multiple of 8 up to 2048.
//! variants DTYPE f32 f16 bf16 q4
//! variants REDUCE barrier subgroup
struct Params {
  width8: u32,
  vocab: u32,
  eps: f32,
}

const REDUCE_THREADS: u32 = 256u;
const ROWS: u32 = 32u;   // rows (tokens) per tile: 8 threads a row
const TILES: u32 = 4u;   // tiles per workgroup: ROWS · TILES = kHeadRows (decode_ops.h)
const AHEAD: u32 = 6u;   // loads in flight per thread

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> ln_params: array<f32>;
@group(0) @binding(3) var<storage, read> wte: array<wte_word>;
@group(0) @binding(4) var<storage, read_write> logits: array<f32>;
@group(0) @binding(5) var<storage, read_write> best: array<u32>;

//! include "reduce_{REDUCE}.wgsl"
//! include "load8_{DTYPE}.wgsl" for wte
//! include "decode_stage.wgsl"
//! include "decode_layernorm.wgsl"

var<workgroup> tile_logits: array<f32, ROWS * TILES>;

fn dot8(k8: u32, w: mat2x4<f32>) -> f32 {
  let k = k8 * 8u;
  let lo = vec4<f32>(staged[k], staged[k + 1u], staged[k + 2u], staged[k + 3u]);
  let hi = vec4<f32>(staged[k + 4u], staged[k + 5u], staged[k + 6u], staged[k + 7u]);
  return dot(lo, w[0]) + dot(hi, w[1]);
}

// This thread's part of a row's dot product, the weights AHEAD loads at a time (GPT-2's 768
// columns: two batches of six; on the H200 one batch of twelve ran 1.5× slower, three batches of
// four 8% slower). `first` holds the row's first batch, loaded earlier.
fn row_part(row: u32, part: u32, first: array<mat2x4<f32>, AHEAD>) -> f32 {
  var sum = 0.0;
  for (var j = 0u; j < AHEAD; j++) {
    let k8 = part + j * 8u;
    if (k8 < params.width8) {
      sum += dot8(k8, first[j]);
    }
  }
  for (var k8 = part + 8u * AHEAD; k8 < params.width8; k8 += 8u * AHEAD) {
    var w: array<mat2x4<f32>, AHEAD>;
    for (var j = 0u; j < AHEAD; j++) {
      w[j] = wte_at8(row + min(k8 + j * 8u, params.width8 - 1u));
    }
    for (var j = 0u; j < AHEAD; j++) {
      if (k8 + j * 8u < params.width8) {
        sum += dot8(k8 + j * 8u, w[j]);
      }
    }
  }
  return sum;
}

fn first_loads(row: u32, part: u32) -> array<mat2x4<f32>, AHEAD> {
  var loaded: array<mat2x4<f32>, AHEAD>;
  for (var j = 0u; j < AHEAD; j++) {
    let k8 = part + j * 8u;
    if (k8 < params.width8) {
      loaded[j] = wte_at8(row + k8);
    }
  }
  return loaded;
}

@compute @workgroup_size(256)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
  reduce_begin(invocation);
  let workgroup = group.y * groups.x + group.x;
  let part = worker % 8u;
  let first_token = workgroup * ROWS * TILES;
  // The first tile's first loads go out before the LayerNorm.
  var ahead = first_loads(min(first_token + worker / 8u, params.vocab - 1u) * params.width8, part);
  ln_stage(params.width8 * 8u, params.eps);
  workgroupBarrier();  // publishes `staged`
  for (var tile = 0u; tile < TILES; tile++) {
    let slot = tile * ROWS + worker / 8u;
    let token = first_token + slot;
    let row = min(token, params.vocab - 1u) * params.width8;
    if (tile > 0u) {
      ahead = first_loads(row, part);
    }
    let row_sum = octet_sum(row_part(row, part, ahead));  // the row's parts: workers 8r .. 8r + 7
    if (part == 0u) {
      tile_logits[slot] = row_sum;
      if (token < params.vocab) {
        logits[token] = row_sum;
      }
    }
  }
  workgroupBarrier();  // publishes `tile_logits`
  // The candidate and the normaliser over the workgroup's tokens, one per thread.
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  let token = first_token + worker;
  if (worker < ROWS * TILES && token < params.vocab) {
    value = tile_logits[worker];
    index = token;
  }
  let chosen = workgroup_best(value, index);
  let largest = bitcast<f32>(chosen.x);
  // Σ exp(logit − the workgroup's largest), for the probe: merged across workgroups (as the
  // attention chunks are), it is the softmax normaliser, so the host need not take 50257
  // exponentials to report the top tokens' probabilities.
  let total = workgroup_sum(select(0.0, exp(value - largest), index != 0xffffffffu));
  if (worker == 0u && first_token < params.vocab) {  // the grid may round up past the end
    best[workgroup * 3u] = chosen.x;
    best[workgroup * 3u + 1u] = chosen.y;
    best[workgroup * 3u + 2u] = bitcast<u32>(total);
  }
}
