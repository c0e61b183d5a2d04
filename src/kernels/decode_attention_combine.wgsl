// Decode step, attention part 2 of 2: one workgroup per head merges the chunks' softmax
// statistics (rescaling each chunk by exp(its max − the overall max)), writes the head's output z
// (head-major [n_head·head_dim], i.e. already merged) and turns the head's raw scores into the
// probabilities the probe reads. Every layer's probabilities go to one buffer, packed as
// [n_layer, n_head, kv_len] for this step's kv_len, so the probe reads them in one region.
struct Params {
  head_dim: u32,
  n_ctx: u32,
  chunks: u32,
  layer: u32,
  n_head: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> step: array<u32>;
@group(0) @binding(2) var<storage, read> partials: array<f32>;
@group(0) @binding(3) var<storage, read> scores: array<f32>;
@group(0) @binding(4) var<storage, read_write> patterns: array<f32>;
@group(0) @binding(5) var<storage, read_write> z: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) local: u32,
        @builtin(workgroup_id) group: vec3<u32>) {
  let head = group.x;
  let d = params.head_dim;
  let kv_len = step[0] + 1u;
  let used = (kv_len + 63u) / 64u;
  let base = head * params.chunks * (d + 2u);
  // Every thread reads the few chunk statistics itself: no workgroup memory, no barriers.
  var largest = bitcast<f32>(0xff7fffffu);
  for (var c = 0u; c < used; c++) {
    largest = max(largest, partials[base + c * (d + 2u)]);
  }
  var total = 0.0;
  for (var c = 0u; c < used; c++) {
    let at = base + c * (d + 2u);
    total += partials[at + 1u] * exp(partials[at] - largest);
  }
  for (var lane = local; lane < d; lane += 64u) {
    var sum = 0.0;
    for (var c = 0u; c < used; c++) {
      let at = base + c * (d + 2u);
      sum += partials[at + 2u + lane] * exp(partials[at] - largest);
    }
    z[head * d + lane] = sum / total;
  }
  let row = head * params.n_ctx;
  let out = (params.layer * params.n_head + head) * kv_len;
  for (var j = local; j < kv_len; j += 64u) {
    patterns[out + j] = exp(scores[row + j] - largest) / total;
  }
}
