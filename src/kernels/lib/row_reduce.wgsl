// Reductions across one 256-thread workgroup, for the kernels that give each row a workgroup
// (the training kernels' layernorm_backward, softmax_backward, cross_entropy*, sum_of_squares).
// Each reduction starts with a barrier (every thread has read the previous result) and returns
// partial[0] after its last barrier: Mesa's llvmpipe miscompiles a value read from workgroup
// memory before a barrier and used after it (as layernorm.wgsl notes).

var<workgroup> partial: array<f32, 256>;

fn workgroup_sum(lid: u32, value: f32) -> f32 {
  workgroupBarrier();
  partial[lid] = value;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      partial[lid] += partial[lid + stride];
    }
    workgroupBarrier();
  }
  return partial[0];
}

fn workgroup_max(lid: u32, value: f32) -> f32 {
  workgroupBarrier();
  partial[lid] = value;
  workgroupBarrier();
  for (var stride = 128u; stride > 0u; stride >>= 1u) {
    if (lid < stride) {
      partial[lid] = max(partial[lid], partial[lid + stride]);
    }
    workgroupBarrier();
  }
  return partial[0];
}
