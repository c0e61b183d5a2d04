// [n_head, t, head_dim] → [t, n_head · head_dim]: one thread per output element gathers its
// head's value (grid folded into y past 65535 groups).
struct Params {
  n: u32,  // t * C
  t: u32,
  cols: u32,  // C
  head_dim: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let token = i / p.cols;
  let col = i % p.cols;
  let head = col / p.head_dim;
  out[i] = x[(head * p.t + token) * p.head_dim + col % p.head_dim];
}
