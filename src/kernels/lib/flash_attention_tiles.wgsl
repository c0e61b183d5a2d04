// Shared by flash_attention.wgsl and flash_attention_pairs.wgsl (see the first for the
// attention they compute): the tiles of 32 keys and their values that go through workgroup memory
// (16 KiB, WebGPU's default limit), each key row's vec4s rotated by KEY_ROTATION times the key's
// index (the includer's constant) so that the vec4s its threads read at once sit in different
// banks. A workgroup of 256 threads stages a tile, two vec4s of keys and two of values a thread;
// the includer fetches the next tile into registers before it uses the current one, so that its
// latency hides behind the tile's work.
//! include "flash_attention_block.wgsl"

const KEYS: u32 = 32u;
const PARTS: u32 = 4u;

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

// Puts the fetched tile of keys k0.. into workgroup memory (once every thread is done with the
// previous one) and fetches the next, zeros past the end.
fn advance_tile(staged: Staged, b: Block, k0: u32, li: u32) -> Staged {
  workgroupBarrier();
  stage(staged, li);
  workgroupBarrier();
  return fetch_tile(b.head_keys, k0 + KEYS, b.keys_end, li);
}
