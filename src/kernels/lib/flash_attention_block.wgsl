// Shared by every form of the prompt's attention (flash_attention.wgsl says what they compute):
// the parameters and bindings, and a workgroup's block of 64 query rows.
struct Params {
  t: u32,             // query rows of each sequence
  n_head: u32,
  offset: u32,        // keys before a sequence's first query (a cache's earlier positions)
  scale: f32,
  key_row: u32,       // vec4s from one key (or value) to the next
  key_head: u32,      // from one head's keys to the next head's
  key_sequence: u32,  // from one sequence's keys to the next sequence's
  key_first: u32,     // where key 0 of head 0 of sequence 0 sits in `keys`
  value_first: u32,   // where its value sits in `values`
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> qkv: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> keys: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> values: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

const ROWS: u32 = 64u;
const HEAD4: u32 = 16u;    // vec4s per head row
const NONE: f32 = -3.0e38;  // a score below every real one

// A workgroup's block of query rows and its head's keys: the same for every thread, so that the
// loops over the keys stay in uniform control flow. Grid (n_head, ceil(t / 64), sequences), the
// blocks of rows numbered from the last (see flash_attention.wgsl).
struct Block {
  head: u32,
  first_row: u32,  // its first query row within its sequence
  sequence: u32,
  head_keys: u32,  // where its head's keys start (key j at head_keys + j · key_row)
  keys_end: u32,   // the keys any of its rows sees
}

fn block_of(wid: vec3<u32>, groups: vec3<u32>) -> Block {
  let first_row = (groups.y - 1u - wid.y) * ROWS;
  return Block(wid.x, first_row, wid.z, wid.z * p.key_sequence + wid.x * p.key_head,
               p.offset + min(first_row + ROWS, p.t));
}

// acc + a · b as one chain of four fmas. `acc + dot(a, b)` takes a multiply and an add more: the
// compiler may not reorder the float sum to fold the add into the dot product's chain.
fn dot_fma(a: vec4<f32>, b: vec4<f32>, acc: f32) -> f32 {
  return fma(a.w, b.w, fma(a.z, b.z, fma(a.y, b.y, fma(a.x, b.x, acc))));
}
