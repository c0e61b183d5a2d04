// Sampling, first kernel (include/wgpt/sampling.h, steps 1–3): the tempered, adjusted logits
// z = (logits + bias, penalized over the window) · inv_temperature, and each slice's best token —
// the largest rank key, the lowest id on ties — into best [workgroups, 2] (key, id): the later
// kernels take the largest z from it, greedy decoding its token.
// Thread layout: one workgroup of 256 threads per slice of 1024 logits, thread t taking ids
// slice_start + t + 256·j. First every z = logit · inv_temperature; then the sparse changes of
// the slice's tokens: the window's distinct tokens (penalties, with their bias) and the biased
// tokens outside it; then the slice's best over the result.
// The window is the context's last `last_n` tokens up to the step's position (step[0]: the token
// that has just run): sequence[max(0, step[0] + 1 − last_n) ..= step[0]], staged in workgroup
// memory when it has at most 1024 tokens. `bias` holds (id, value bits) pairs sorted by id.
// Where the step's first cut is top-k's, this kernel also runs its first pass
// (lib/sample_search.wgsl): the histogram of the keys' top digit into `histograms`, and the
// search in slot 0 of `searches`, which the first sample_select settles; a pass of its own would
// only have read z back.
struct Params {
  vocab: u32,
  groups: u32,
  first_cut: u32,  // SEARCH_COUNT: histogram top-k's first digit; SEARCH_NONE: no
  top_k: u32,
  inv_temperature: f32,
  inv_repeat: f32,
  repeat: f32,
  presence: f32,
  frequency: f32,
  last_n: u32,  // 0: no penalties
  biases: u32,  // pairs in `bias`
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> step: array<u32>;
@group(0) @binding(3) var<storage, read> sequence: array<u32>;
@group(0) @binding(4) var<storage, read> bias: array<u32>;
@group(0) @binding(5) var<storage, read_write> z: array<f32>;
@group(0) @binding(6) var<storage, read_write> best: array<u32>;
@group(0) @binding(7) var<storage, read_write> histograms: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> searches: array<u32>;

//! include "sample_cut.wgsl"
//! include "sample_histogram.wgsl"

const STAGED: u32 = 1024u;
var<workgroup> window: array<u32, 1024>;

struct Window {
  first: u32,  // position of its first token in `sequence`
  length: u32,
}

fn window_token(w: Window, i: u32) -> u32 {
  if (w.length <= STAGED) {
    return window[i];
  }
  return sequence[w.first + i];
}

fn bias_of(token: u32) -> f32 {
  var low = 0u;
  var high = params.biases;
  while (low < high) {
    let middle = (low + high) / 2u;
    if (bias[middle * 2u] < token) {
      low = middle + 1u;
    } else {
      high = middle;
    }
  }
  if (low < params.biases && bias[low * 2u] == token) {
    return bitcast<f32>(bias[low * 2u + 1u]);
  }
  return 0.0;
}

// The window's token i, if it is the first of its kind there: its logit with its bias and
// penalties, tempered, written to z.
fn penalize(w: Window, i: u32, start: u32) {
  let token = window_token(w, i);
  if (token < start || token >= min(start + SLICE, params.vocab)) {
    return;
  }
  var count = 0u;
  for (var j = 0u; j < w.length; j++) {
    if (window_token(w, j) == token) {
      if (j < i) {
        return;  // an earlier occurrence handles it
      }
      count++;
    }
  }
  var a = logits[token] + bias_of(token);
  a = select(a * params.repeat, a * params.inv_repeat, a > 0.0);
  a -= f32(count) * params.frequency + params.presence;
  z[token] = a * params.inv_temperature;
}

fn in_window(w: Window, token: u32) -> bool {
  for (var j = 0u; j < w.length; j++) {
    if (window_token(w, j) == token) {
      return true;
    }
  }
  return false;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32, @builtin(workgroup_id) group: vec3<u32>) {
  let start = group.x * SLICE;
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = start + local + 256u * j;
    if (i < params.vocab) {
      z[i] = logits[i] * params.inv_temperature;
    }
  }
  let length = step[0] + 1u;
  let span = min(params.last_n, length);
  let w = Window(length - span, span);
  if (span <= STAGED) {
    for (var i = local; i < span; i += 256u) {
      window[i] = sequence[w.first + i];
    }
  }
  storageBarrier();  // the dense writes land before the sparse ones
  workgroupBarrier();
  for (var i = local; i < span; i += 256u) {
    penalize(w, i, start);
  }
  for (var e = local; e < params.biases; e += 256u) {
    let token = bias[e * 2u];
    if (token >= start && token < min(start + SLICE, params.vocab) && !in_window(w, token)) {
      z[token] = (logits[token] + bitcast<f32>(bias[e * 2u + 1u])) * params.inv_temperature;
    }
  }
  storageBarrier();
  var key = 0u;
  var id = 0xffffffffu;
  for (var j = 0u; j < PER_THREAD; j++) {
    let i = start + local + 256u * j;
    if (i < params.vocab) {
      let k = rank_key(z[i]);
      if (id == 0xffffffffu || k > key) {  // ids rise with j: strict > keeps the lowest
        key = k;
        id = i;
      }
    }
  }
  let slice_best = best_of_workgroup(local, key, id);
  if (local == 0u) {
    best[group.x * 2u] = slice_best.x;
    best[group.x * 2u + 1u] = slice_best.y;
  }
  if (params.first_cut == SEARCH_COUNT) {
    let search = first_search(SEARCH_COUNT, params.top_k);
    histogram_slice(local, group.x, params.vocab, search, SEARCH_COUNT, 0u, 0.0, 0u);
    if (group.x == 0u && local == 0u) {
      store_search(0u, search);
    }
  }
}
