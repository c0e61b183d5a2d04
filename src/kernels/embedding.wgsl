// out[t, c] = wte[ids[t], c] + wpe[position(t), c] over one row chunk of the token table, where
// position(t) = pos_offset + t for a prompt, or positions[t] when each row has its own (per_row = 1:
// a batched decode step, one row per sequence; otherwise `positions` is bound but never read; a
// position past wpe yields a NaN row):
// this dispatch owns the tokens with row_start ≤ id < row_end and leaves the others to the other
// chunks' dispatches, so together they write every element once. The last chunk (is_last) also
// owns ids past the table's end and writes NaN rows for them, so no output is left unwritten.
// One thread per output element, the grid folded into y past 65535 groups. The table is stored as
// f32, f16, bf16 or q4 (the DTYPE variants).
//! variants DTYPE f32 f16 bf16 q4
struct Params {
  n: u32,  // t * cols
  cols: u32,
  pos_offset: u32,
  row_start: u32,
  row_end: u32,
  is_last: u32,
  per_row: u32,
  // What an id past the table yields: NaN, from the host (WGSL has no NaN constant).
  missing: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> ids: array<u32>;
@group(0) @binding(2) var<storage, read> wte: array<wte_word>;
//! include "load1_{DTYPE}.wgsl" for wte
@group(0) @binding(3) var<storage, read> wpe: array<f32>;
@group(0) @binding(4) var<storage, read> positions: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let token = i / p.cols;
  let col = i % p.cols;
  let id = ids[token];
  if (id < p.row_start || (id >= p.row_end && p.is_last == 0u)) {
    return;
  }
  var token_value = p.missing;
  if (id < p.row_end) {
    token_value = wte_at((id - p.row_start) * p.cols + col);
  }
  var position = p.pos_offset + token;
  if (p.per_row == 1u) {
    position = positions[token];
    if (position >= arrayLength(&wpe) / p.cols) {
      token_value = p.missing;  // a position past the table: a NaN row, as an id past it
      position = 0u;
    }
  }
  out[i] = token_value + wpe[position * p.cols + col];
}
