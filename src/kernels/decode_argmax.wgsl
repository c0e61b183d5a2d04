// Decode step, last kernel: greedy choice of the next token on the GPU, the first maximum on ties
// (as HF), written into the step buffer [position, token] with the position advanced, so the next
// step needs nothing from the host.
struct Params {
  vocab: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read_write> step: array<u32>;

var<workgroup> best_value: array<f32, 256>;
var<workgroup> best_index: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) local: u32) {
  var value = bitcast<f32>(0xff7fffffu);  // the lowest finite f32
  var index = 0xffffffffu;
  // Each thread walks its indices in increasing order: strict > keeps the first maximum.
  for (var i = local; i < params.vocab; i += 256u) {
    if (logits[i] > value || index == 0xffffffffu) {
      value = logits[i];
      index = i;
    }
  }
  best_value[local] = value;
  best_index[local] = index;
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      let other_value = best_value[local + stride];
      let other_index = best_index[local + stride];
      let mine = best_value[local];
      if (other_value > mine || (other_value == mine && other_index < best_index[local])) {
        best_value[local] = other_value;
        best_index[local] = other_index;
      }
    }
  }
  workgroupBarrier();
  if (local == 0u) {
    step[1] = best_index[0];
    step[0] = step[0] + 1u;
  }
}
