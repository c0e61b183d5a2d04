// Shared by flash_attention.wgsl and flash_attention_pairs.wgsl (see the first for the
// attention they compute): the parameters and bindings, and the tiles of 32 keys and their values
// that go through workgroup memory (16 KiB, WebGPU's default limit), each key row's vec4s rotated
// by KEY_ROTATION times the key's index (the includer's constant) so that the vec4s its threads
// read at once sit in different banks. A workgroup of 256
// threads stages a tile, two vec4s of keys and two of values a thread; the includer fetches the
// next tile into registers before it uses the current one, so that its latency hides behind the
// tile's work.
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
const KEYS: u32 = 32u;
const HEAD4: u32 = 16u;    // vec4s per head row
const PARTS: u32 = 4u;
const NONE: f32 = -3.0e38;  // a score below every real one

var<workgroup> k_tile: array<vec4<f32>, KEYS * HEAD4>;
var<workgroup> v_tile: array<vec4<f32>, KEYS * HEAD4>;

// Where vec4 d of key (or merged row) j sits in a tile.
fn slot(j: u32, d: u32) -> u32 {
  return j * HEAD4 + ((d + KEY_ROTATION * j) % HEAD4);
}

// This thread's two vec4s of a tile's keys and of its values: vec4s li and li + 256 of the tile
// (KEYS · HEAD4 = 512), in the order the tile stores them, key by key. Named fields rather than an
// array, so that they stay in registers on drivers that would spill a dynamically indexed array.
struct Staged {
  k0: vec4<f32>,
  v0: vec4<f32>,
  k1: vec4<f32>,
  v1: vec4<f32>,
}

// Where vec4 e of the tile of keys k0.. sits in `keys` (less key_first) and in `values` (less
// value_first).
fn tile_at(head_keys: u32, k0: u32, e: u32) -> u32 {
  return head_keys + (k0 + e / HEAD4) * p.key_row + e % HEAD4;
}

// The tile of keys k0.. from global memory, zeros from keys_end on.
fn fetch_tile(head_keys: u32, k0: u32, keys_end: u32, li: u32) -> Staged {
  var staged: Staged;
  if (k0 + li / HEAD4 < keys_end) {
    let at = tile_at(head_keys, k0, li);
    staged.k0 = keys[p.key_first + at];
    staged.v0 = values[p.value_first + at];
  }
  if (k0 + (li + 256u) / HEAD4 < keys_end) {
    let at = tile_at(head_keys, k0, li + 256u);
    staged.k1 = keys[p.key_first + at];
    staged.v1 = values[p.value_first + at];
  }
  return staged;
}

// Stores them where slot() puts them in the tiles of workgroup memory.
fn stage(staged: Staged, li: u32) {
  let e1 = li + 256u;
  k_tile[slot(li / HEAD4, li % HEAD4)] = staged.k0;
  v_tile[slot(li / HEAD4, li % HEAD4)] = staged.v0;
  k_tile[slot(e1 / HEAD4, e1 % HEAD4)] = staged.k1;
  v_tile[slot(e1 / HEAD4, e1 % HEAD4)] = staged.v1;
}

// A workgroup's block of query rows and its head's keys: the same for every thread, so that the
// loops over the keys stay in uniform control flow. Grid (n_head, ceil(t / 64), sequences), the
// blocks of rows numbered from the last (see flash_attention.wgsl).
struct Block {
  head: u32,
  first_row: u32,  // its first query row within its sequence
  sequence: u32,
  head_keys: u32,  // where its head's keys start (tile_at)
  keys_end: u32,   // the keys any of its rows sees
}

fn block_of(wid: vec3<u32>, groups: vec3<u32>) -> Block {
  let first_row = (groups.y - 1u - wid.y) * ROWS;
  return Block(wid.x, first_row, wid.z, wid.z * p.key_sequence + wid.x * p.key_head,
               p.offset + min(first_row + ROWS, p.t));
}

// Puts the fetched tile of keys k0.. into workgroup memory (once every thread is done with the
// previous one) and fetches the next, zeros past the end.
fn advance_tile(staged: Staged, b: Block, k0: u32, li: u32) -> Staged {
  workgroupBarrier();
  stage(staged, li);
  workgroupBarrier();
  return fetch_tile(b.head_keys, k0 + KEYS, b.keys_end, li);
}
