// LayerNorm over rows of `cols`: (x − mean) / √(var + eps) · gamma + beta, biased variance.
// One workgroup of 256 threads per row (rows folded into y past 65535); mean first, then the
// variance around it (two passes: no cancellation from E[x²] − mean²).
struct Params {
  rows: u32,
  cols: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;

var<workgroup> partial: array<f32, 256>;

// The reductions read their result after their last barrier and guard `partial` with a leading
// barrier instead of a trailing one: Mesa's llvmpipe miscompiles a value loaded from workgroup
// memory before a barrier and used after it (threads past the first 8 saw a stale sum).
//
// The sum of every thread's `value` across the workgroup.
fn workgroup_sum(lid: u32, value: f32) -> f32 {
  workgroupBarrier();  // every thread has read the previous reduction's result
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

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wid.y * nwg.x + wid.x;
  if (row >= p.rows) {
    return;  // uniform across the workgroup: no barrier is skipped by only some threads
  }
  let base = row * p.cols;
  var sum = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    sum += x[base + c];
  }
  let mean = workgroup_sum(lid, sum) / f32(p.cols);
  var squares = 0.0;
  for (var c = lid; c < p.cols; c += 256u) {
    let d = x[base + c] - mean;
    squares += d * d;
  }
  let inv_std = inverseSqrt(workgroup_sum(lid, squares) / f32(p.cols) + p.eps);
  for (var c = lid; c < p.cols; c += 256u) {
    y[base + c] = (x[base + c] - mean) * inv_std * gamma[c] + beta[c];
  }
}
