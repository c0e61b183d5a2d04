// A batched decode step's keys and values: row r of the fused projection qkv [rows, 3C] (queries,
// keys, values, each C = n_head · head_dim wide) is the newest token of the sequence in slot
// slots[r], at position positions[r]; its key and value go to that slot's block of the pools
// [slots, n_head, n_ctx, head_dim], at row positions[r] of every head. One thread per (row, column)
// of the keys, writing that element of both pools (grid folded into y past 65535 groups). A row
// whose slot or position lies outside the pools writes nothing.
struct Params {
  n: u32,  // rows · C
  c: u32,
  head_dim: u32,
  n_ctx: u32,
  slots: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<f32>;
@group(0) @binding(2) var<storage, read> slots: array<u32>;
@group(0) @binding(3) var<storage, read> positions: array<u32>;
@group(0) @binding(4) var<storage, read_write> k_pool: array<f32>;
@group(0) @binding(5) var<storage, read_write> v_pool: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let row = i / p.c;
  let col = i % p.c;
  let slot = slots[row];
  let position = positions[row];
  if (slot >= p.slots || position >= p.n_ctx) {
    return;
  }
  let head = col / p.head_dim;
  let at = ((slot * (p.c / p.head_dim) + head) * p.n_ctx + position) * p.head_dim + col % p.head_dim;
  k_pool[at] = qkv[row * 3u * p.c + p.c + col];
  v_pool[at] = qkv[row * 3u * p.c + 2u * p.c + col];
}
