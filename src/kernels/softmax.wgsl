// Softmax over rows of `cols` keys, optionally with the causal mask of a KV cache: row r is query
// i = r % q_len at absolute position offset + i and sees key j iff j ≤ offset + i. Masked entries
// are written as exactly 0 and never enter the max or the sum (no −inf arithmetic).
// One workgroup of 256 threads per row (rows folded into y past 65535): max, sum, write.
struct Params {
  rows: u32,
  cols: u32,
  q_len: u32,
  offset: u32,
  causal: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

var<workgroup> partial: array<f32, 256>;

// The reductions read their result after their last barrier and guard `partial` with a leading
// barrier instead of a trailing one: Mesa's llvmpipe miscompiles a value loaded from workgroup
// memory before a barrier and used after it (threads past the first 8 saw a stale sum).

fn workgroup_max(lid: u32, value: f32) -> f32 {
  workgroupBarrier();  // every thread has read the previous reduction's result
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
    return;  // uniform across the workgroup
  }
  let base = row * p.cols;
  var visible = p.cols;
  if (p.causal != 0u) {
    visible = min(p.cols, p.offset + row % p.q_len + 1u);
  }
  var largest = -3.4e38;  // finite: a row always has key 0 visible
  for (var c = lid; c < visible; c += 256u) {
    largest = max(largest, x[base + c]);
  }
  let row_max = workgroup_max(lid, largest);
  var sum = 0.0;
  for (var c = lid; c < visible; c += 256u) {
    sum += exp(x[base + c] - row_max);
  }
  let inv_sum = 1.0 / workgroup_sum(lid, sum);
  for (var c = lid; c < p.cols; c += 256u) {
    if (c < visible) {
      y[base + c] = exp(x[base + c] - row_max) * inv_sum;
    } else {
      y[base + c] = 0.0;
    }
  }
}
