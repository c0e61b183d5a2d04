// C = scale · op(A) · op(B) + bias, batched, then the epilogue (lib/gemm_epilogue.wgsl): the
// tiled GEMM for m past the gemv range. B may be stored as f32, f16, bf16 or q4 (the variants:
// matmul, matmul.f16, ...).
//! variants DTYPE f32 f16 bf16 q4
// Each workgroup (16×16 threads) computes a 64×64 block of C over one k split
// (lib/gemm_output.wgsl); each thread a 4×4 sub-block held in four vec4 accumulators. k advances
// in tiles of 16, each staged in workgroup memory as vec4s of 4 rows of A (columns of B) per k,
// so that a step of k reads one vec4 of each for 16 fmas (a thread's rows share ty, so A's vec4 is
// a broadcast; B's 16 vec4s are consecutive). Scalar reads, two of them bank-conflicted, had made
// the kernel wait on workgroup memory three cycles for every one of fmas.
//
// The next tile is loaded from global memory into registers before the current one is multiplied,
// and staged into the other half of a double buffer after it, so that a tile waits at one barrier
// and its loads' latency hides behind the multiplication: with few workgroups (a short prompt's
// products) that latency, not arithmetic, is what a tile costs. Loads are scalar, so that every
// layout and DTYPE of the operands works; consecutive threads walk whichever axis is contiguous
// in memory (coalesced in every layout). A k row of a tile is padded from 16 to 17 vec4s, so that
// threads walking k while they stage write distinct banks.
// Every read of workgroup memory is used before the next barrier (llvmpipe miscompiles a read
// whose use follows one), and accumulators are indexed by constants only (kept in registers).
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

var<workgroup> a_tile: array<array<array<vec4<f32>, 17>, 16>, 2>;  // [half][kk][row / 4]
var<workgroup> b_tile: array<array<array<vec4<f32>, 17>, 16>, 2>;  // [half][kk][col / 4]

// This thread's four elements of each 64×16 tile of A and 16×64 tile of B, between their load and
// their staging; element e is number e · 256 + index of the tile.
struct Fetched {
  a: vec4<f32>,
  b: vec4<f32>,
}

// (row, kk) of A's tile and (kk, col) of B's tile that element `flat` of the tile stands for.
fn a_place(flat: u32) -> vec2<u32> {
  if (p.trans_a != 0u) {
    return vec2<u32>(flat % TILE, flat / TILE);
  }
  return vec2<u32>(flat / TILE_K, flat % TILE_K);
}

fn b_place(flat: u32) -> vec2<u32> {
  if (p.trans_b != 0u) {
    return vec2<u32>(flat % TILE_K, flat / TILE_K);
  }
  return vec2<u32>(flat / TILE, flat % TILE);
}

fn fetch(batch: u32, row0: u32, col0: u32, k0: u32, k_end: u32, index: u32) -> Fetched {
  var f: Fetched;
  for (var e = 0u; e < 4u; e++) {
    let ap = a_place(e * 256u + index);
    f.a[e] = load_a(batch, row0 + ap.x, k0 + ap.y, k_end);
    let bp = b_place(e * 256u + index);
    f.b[e] = load_b(batch, k0 + bp.x, col0 + bp.y, k_end);
  }
  return f;
}

fn stage(f: Fetched, index: u32, half: u32) {
  for (var e = 0u; e < 4u; e++) {
    let ap = a_place(e * 256u + index);
    a_tile[half][ap.y][ap.x / 4u][ap.x % 4u] = f.a[e];
    let bp = b_place(e * 256u + index);
    b_tile[half][bp.x][bp.y / 4u][bp.y % 4u] = f.b[e];
  }
}

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) index: u32) {
  let split = split_of(wid.z);
  let batch = split.batch;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  var acc: array<vec4<f32>, 4>;  // acc[i]: row ty·4 + i, columns tx·4..tx·4 + 3
  let k_range = triangle_k_range(split.k_begin, split.k_end, row0, col0, TILE);
  stage(fetch(batch, row0, col0, k_range.x, k_range.y, index), index, 0u);
  workgroupBarrier();
  var half = 0u;
  for (var k0 = k_range.x; k0 < k_range.y; k0 += TILE_K) {
    let next = fetch(batch, row0, col0, k0 + TILE_K, k_range.y, index);  // zeros past the end
    let a_half = &a_tile[half];
    let b_half = &b_tile[half];
    for (var kk = 0u; kk < TILE_K; kk++) {
      let av = (*a_half)[kk][lid.y];
      let bv = (*b_half)[kk][lid.x];
      acc[0] = fma(vec4<f32>(av.x), bv, acc[0]);
      acc[1] = fma(vec4<f32>(av.y), bv, acc[1]);
      acc[2] = fma(vec4<f32>(av.z), bv, acc[2]);
      acc[3] = fma(vec4<f32>(av.w), bv, acc[3]);
    }
    half = 1u - half;
    stage(next, index, half);
    workgroupBarrier();
  }
  let row = row0 + lid.y * 4u;
  let col = col0 + lid.x * 4u;
  for (var j = 0u; j < 4u; j++) {
    store_sum(split, row, col + j, acc[0][j]);
    store_sum(split, row + 1u, col + j, acc[1][j]);
    store_sum(split, row + 2u, col + j, acc[2][j]);
    store_sum(split, row + 3u, col + j, acc[3][j]);
  }
}
