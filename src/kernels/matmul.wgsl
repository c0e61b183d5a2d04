// C = scale · op(A) · op(B) + bias, batched, then the epilogue (lib/gemm_epilogue.wgsl): the
// tiled GEMM for m past the gemv range. B may be stored as f32, f16, bf16 or q4, row-major or in
// column strips (the variants: matmul, matmul.f16, matmul.strips, matmul.f16.strips, ...).
//! variants DTYPE f32 f16 bf16 q4
//! variants LAYOUT rows strips
// Each workgroup (16×16 threads) computes a 64×64 block of C over one k split
// (lib/gemm_output.wgsl); each thread a 4×4 sub-block held in four vec4 accumulators. k advances
// in tiles of 16 staged in workgroup memory, loaded so that consecutive threads walk whichever
// axis is contiguous in memory (coalesced in every layout). B in column strips is walked across
// its columns as a row-major B is (a warp's loads touch four strips, one line each): walked down k,
// its stores into b_tile would meet in one bank.
// A triangular product (lib/gemm_triangle.wgsl) walks only the part of its split's k that the
// block needs. Grid (ceil(n/64), ceil(m/64), batch · nsplit). k_per_split is a multiple of 16.
//! include "gemm_params.wgsl"
//! include "gemm_scalar_operands.wgsl"
@group(0) @binding(3) var<storage, read> bias: array<f32>;  // A again when there is no bias
@group(0) @binding(4) var<storage, read> residual: array<f32>;  // A again when unused
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
//! include "gemm_output.wgsl"

const TILE: u32 = 64u;
const TILE_K: u32 = 16u;
// A's tile rows are padded to 17 floats: at 16, the four rows a thread reads share a bank.
const A_STRIDE: u32 = 17u;

var<workgroup> a_tile: array<f32, 1088>;  // [TILE rows][A_STRIDE]
var<workgroup> b_tile: array<f32, 1024>;  // [TILE_K][TILE cols]

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) index: u32) {
  let split = split_of(wid.z);
  let batch = split.batch;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  var acc: array<vec4<f32>, 4>;
  let k_range = triangle_k_range(split.k_begin, split.k_end, row0, col0, TILE);
  for (var k0 = k_range.x; k0 < k_range.y; k0 += TILE_K) {
    for (var e = 0u; e < 4u; e++) {
      let flat = e * 256u + index;
      // (row, kk) of the A tile and (kk, col) of the B tile this thread stages.
      var ar = flat / TILE_K;
      var ak = flat % TILE_K;
      if (p.trans_a != 0u) {
        ar = flat % TILE;
        ak = flat / TILE;
      }
      a_tile[ar * A_STRIDE + ak] = load_a(batch, row0 + ar, k0 + ak, k_range.y);
      var bk = flat / TILE;
      var bc = flat % TILE;
      if (p.trans_b != 0u) {
        bk = flat % TILE_K;
        bc = flat / TILE_K;
      }
      b_tile[bk * TILE + bc] = load_b(batch, k0 + bk, col0 + bc, k_range.y);
    }
    workgroupBarrier();
    for (var kk = 0u; kk < TILE_K; kk++) {
      let bv = vec4<f32>(b_tile[kk * TILE + lid.x * 4u], b_tile[kk * TILE + lid.x * 4u + 1u],
                         b_tile[kk * TILE + lid.x * 4u + 2u], b_tile[kk * TILE + lid.x * 4u + 3u]);
      for (var i = 0u; i < 4u; i++) {
        acc[i] = fma(vec4<f32>(a_tile[(lid.y * 4u + i) * A_STRIDE + kk]), bv, acc[i]);
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    for (var j = 0u; j < 4u; j++) {
      store_sum(split, row0 + lid.y * 4u + i, col0 + lid.x * 4u + j, acc[i][j]);
    }
  }
}
