// Stores a prompt's keys and values from the fused projection qkv [t, 3C] (queries, keys, values,
// each C = n_head · head_dim wide) into the caches [n_head, n_ctx, head_dim] at rows
// [position, position + t): one thread per (row, column) of the keys, writing that element of
// both caches (grid folded into y past 65535 groups).
struct Params {
  n: u32,  // t · C
  c: u32,
  head_dim: u32,
  n_ctx: u32,
  position: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;
@group(0) @binding(2) var<storage, read_write> k_cache: array<f32>;
@group(0) @binding(3) var<storage, read_write> v_cache: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let row = i / p.c;
  let col = i % p.c;
  let at = ((col / p.head_dim) * p.n_ctx + p.position + row) * p.head_dim + col % p.head_dim;
  k_cache[at] = qkv[row * 3u * p.c + p.c + col];
  v_cache[at] = qkv[row * 3u * p.c + 2u * p.c + col];
}
