// merge_heads' gradient: dy [t, n_head · head_dim] → dx [n_head, t, head_dim]. One thread per
// element of dx gathers its value (grid folded into y past 65535 groups).
struct Params {
  n: u32,  // t * C
  t: u32,
  cols: u32,  // C
  head_dim: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let head = i / (p.t * p.head_dim);
  let token = (i / p.head_dim) % p.t;
  dx[i] = dy[token * p.cols + head * p.head_dim + i % p.head_dim];
}
