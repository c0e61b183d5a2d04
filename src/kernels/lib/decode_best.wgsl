// Shared by the decode kernels that pick the greedy token: a workgroup-wide argmax over one
// (value, index) candidate per thread — the largest value, the lowest index on ties (as HF);
// index 0xffffffff marks a thread with no candidate. The result is in best_value[0] and
// best_index[0] after the call, for every thread.

var<workgroup> best_value: array<f32, 256>;
var<workgroup> best_index: array<u32, 256>;

fn best_reduce(local: u32, value: f32, index: u32) {
  best_value[local] = value;
  best_index[local] = index;
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      let other_value = best_value[local + stride];
      let other_index = best_index[local + stride];
      if (other_index != 0xffffffffu &&
          (best_index[local] == 0xffffffffu || other_value > best_value[local] ||
           (other_value == best_value[local] && other_index < best_index[local]))) {
        best_value[local] = other_value;
        best_index[local] = other_index;
      }
    }
  }
  workgroupBarrier();
}
