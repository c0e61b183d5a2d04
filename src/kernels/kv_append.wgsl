// Writes x [n_head, t, head_dim] into cache [n_head, n_ctx, head_dim] at rows
// [position, position + t) of every head, in place: one thread per element of x (grid folded into
// y past 65535 groups).
struct Params {
  n: u32,  // n_head * t * head_dim
  t: u32,
  head_dim: u32,
  n_ctx: u32,
  position: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> cache: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let per_head = p.t * p.head_dim;
  let head = i / per_head;
  let within = i % per_head;  // (row, d) of this head, row-major
  cache[(head * p.n_ctx + p.position) * p.head_dim + within] = x[i];
}
