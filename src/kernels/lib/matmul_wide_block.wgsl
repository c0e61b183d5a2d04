// Shared by matmul_wide.wgsl and matmul_wide_vec4.wgsl: C = scale · op(A) · op(B) + bias, batched,
// then the epilogue, one 128×128 block of C per workgroup over one k split. Same parameters,
// split-k and output placement as matmul.wgsl (lib/gemm_output.wgsl); the includer declares the
// bindings `a` and `b` and reads them:
//   fn fetch(batch, row0, col0, k0, k_end, index) -> Fetched: this thread's share of the 128×8
//     tiles of A (rows row0.., k k0..) and B (k k0.., columns col0..), zeros past m, n or k_end;
//   fn stage(f: Fetched, index, half): stores them into a_tile[half] and b_tile[half].
//
// Each workgroup (16×16 threads) computes a 128×128 block; each thread an 8×8 sub-block held in 16
// vec4 accumulators: rows ty·4..ty·4+3 and 64+ty·4..64+ty·4+3, columns likewise from tx. Per step
// of k a thread reads two vec4s of A and two of B from workgroup memory and does 64 fmas with them
// (matmul.wgsl: 8 scalar reads for 16 fmas).
//
// k advances in tiles of 8 staged in workgroup memory as [row / 4][kk] vec4s of 4 rows (columns
// for B), each group of 4 rows padded from 8 to 9 vec4s (9 KiB a tile). A thread's reads for
// every kk go through one pointer to its own row group, so they need no index arithmetic once the
// kk loop is unrolled; the 16 threads of a row read vec4s 144 bytes apart, which fall in distinct
// banks for each 8-thread phase, and threads sharing ty read the same A vec4 (a broadcast).
// Staging is conflict-free too: threads walking k write consecutive floats of one row group, and
// threads walking rows for one kk write 36 floats (9 vec4s) apart. The next tile is fetched from
// global memory into registers before the current one is multiplied, so its latency hides behind
// 512 fmas per thread.
//
// Workgroup memory holds two tiles: each step multiplies one while it stages the next into the
// other, then one barrier, so a tile of 512 fmas a thread waits at one barrier instead of two
// (a training step's products 6–9% faster on an H200).
// (Staging into the other half is safe: every thread finished reading it before the last barrier.)
// Every read of workgroup memory is used before the next barrier: llvmpipe miscompiles a workgroup
// read whose use follows one.
// Accumulators are only ever indexed by constants, so that they stay in registers on drivers that
// would spill a dynamically indexed array to memory.
// A triangular product (lib/gemm_triangle.wgsl) walks only the part of its split's k that the
// block needs. Grid (ceil(n/128), ceil(m/128), batch · nsplit); k_per_split is a multiple of 8.
//! include "gemm_params.wgsl"
@group(0) @binding(3) var<storage, read> bias: array<f32>;  // A again when there is no bias
@group(0) @binding(4) var<storage, read> residual: array<f32>;  // A again when unused
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
//! include "gemm_output.wgsl"

const TILE: u32 = 128u;
const TILE_K: u32 = 8u;

var<workgroup> a_tile: array<array<array<vec4<f32>, 9>, 32>, 2>;  // [half][row / 4][kk]
var<workgroup> b_tile: array<array<array<vec4<f32>, 9>, 32>, 2>;  // [half][col / 4][kk]

// This thread's four elements of each 128×8 tile, between their fetch and their staging.
struct Fetched {
  a: vec4<f32>,
  b: vec4<f32>,
}

// Stores columns col..col+3 of one output row.
fn store(s: Split, row: u32, col: u32, value: vec4<f32>) {
  for (var j = 0u; j < 4u; j++) {
    store_sum(s, row, col + j, value[j]);
  }
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) index: u32) {
  let split = split_of(wid.z);
  let batch = split.batch;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  // acc[4·h + i] holds row i of quadrant h: 0 = (low rows, low columns), 1 = (low, high),
  // 2 = (high, low), 3 = (high, high), "high" being 64 further on.
  var acc: array<vec4<f32>, 16>;
  let k_range = triangle_k_range(split.k_begin, split.k_end, row0, col0, TILE);
  stage(fetch(batch, row0, col0, k_range.x, k_range.y, index), index, 0u);
  workgroupBarrier();
  var half = 0u;
  for (var k0 = k_range.x; k0 < k_range.y; k0 += TILE_K) {
    let next = fetch(batch, row0, col0, k0 + TILE_K, k_range.y, index);  // zeros past the end
    let a_lo = &a_tile[half][lid.y];
    let a_hi = &a_tile[half][lid.y + 16u];
    let b_lo = &b_tile[half][lid.x];
    let b_hi = &b_tile[half][lid.x + 16u];
    for (var kk = 0u; kk < TILE_K; kk++) {
      let al = (*a_lo)[kk];
      let ah = (*a_hi)[kk];
      let bl = (*b_lo)[kk];
      let bh = (*b_hi)[kk];
      acc[0] = fma(vec4<f32>(al.x), bl, acc[0]);
      acc[1] = fma(vec4<f32>(al.y), bl, acc[1]);
      acc[2] = fma(vec4<f32>(al.z), bl, acc[2]);
      acc[3] = fma(vec4<f32>(al.w), bl, acc[3]);
      acc[4] = fma(vec4<f32>(al.x), bh, acc[4]);
      acc[5] = fma(vec4<f32>(al.y), bh, acc[5]);
      acc[6] = fma(vec4<f32>(al.z), bh, acc[6]);
      acc[7] = fma(vec4<f32>(al.w), bh, acc[7]);
      acc[8] = fma(vec4<f32>(ah.x), bl, acc[8]);
      acc[9] = fma(vec4<f32>(ah.y), bl, acc[9]);
      acc[10] = fma(vec4<f32>(ah.z), bl, acc[10]);
      acc[11] = fma(vec4<f32>(ah.w), bl, acc[11]);
      acc[12] = fma(vec4<f32>(ah.x), bh, acc[12]);
      acc[13] = fma(vec4<f32>(ah.y), bh, acc[13]);
      acc[14] = fma(vec4<f32>(ah.z), bh, acc[14]);
      acc[15] = fma(vec4<f32>(ah.w), bh, acc[15]);
    }
    half = 1u - half;
    stage(next, index, half);
    workgroupBarrier();
  }
  let row_lo = row0 + lid.y * 4u;
  let row_hi = row_lo + TILE / 2u;
  let col_lo = col0 + lid.x * 4u;
  let col_hi = col_lo + TILE / 2u;
  store(split, row_lo, col_lo, acc[0]);
  store(split, row_lo + 1u, col_lo, acc[1]);
  store(split, row_lo + 2u, col_lo, acc[2]);
  store(split, row_lo + 3u, col_lo, acc[3]);
  store(split, row_lo, col_hi, acc[4]);
  store(split, row_lo + 1u, col_hi, acc[5]);
  store(split, row_lo + 2u, col_hi, acc[6]);
  store(split, row_lo + 3u, col_hi, acc[7]);
  store(split, row_hi, col_lo, acc[8]);
  store(split, row_hi + 1u, col_lo, acc[9]);
  store(split, row_hi + 2u, col_lo, acc[10]);
  store(split, row_hi + 3u, col_lo, acc[11]);
  store(split, row_hi, col_hi, acc[12]);
  store(split, row_hi + 1u, col_hi, acc[13]);
  store(split, row_hi + 2u, col_hi, acc[14]);
  store(split, row_hi + 3u, col_hi, acc[15]);
}
