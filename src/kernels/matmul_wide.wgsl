// The 128×128-block GEMM (lib/matmul_wide_block.wgsl) reading its operands one float at a time:
// any layout, size and batch stride; B stored as f32, f16, bf16 or q4 (the DTYPE variants),
// row-major or in column strips (the LAYOUT variants).
// ops/gemm.cpp takes matmul_wide_vec4.wgsl instead when every row of both operands is a whole
// number of vec4s.
//! variants DTYPE f32 f16 bf16 q4
//! variants LAYOUT rows strips
// A thread stages four elements of each operand per tile; consecutive threads walk the operand's
// contiguous axis (8 threads down k when that is k, else 128 across the rows or columns), so the
// loads are coalesced in every layout. B in column strips is walked down k: a warp's 32 elements
// then lie in one strip's 8 × 8 block, contiguous.
//! include "matmul_wide_block.wgsl"

//! include "gemm_scalar_operands.wgsl"

// Where element `flat` (0..1023) of a 128×8 tile sits, as (row or column, kk).
fn slot(flat: u32, k_contiguous: bool) -> vec2<u32> {
  if (k_contiguous) {
    return vec2<u32>(flat / TILE_K, flat % TILE_K);
  }
  return vec2<u32>(flat % TILE, flat / TILE);
}

fn fetch(batch: u32, row0: u32, col0: u32, k0: u32, k_end: u32, index: u32) -> Fetched {
  var f: Fetched;
  for (var e = 0u; e < 4u; e++) {
    let flat = e * 256u + index;
    let sa = slot(flat, p.trans_a == 0u);
    f.a[e] = load_a(batch, row0 + sa.x, k0 + sa.y, k_end);
    let sb = slot(flat, p.trans_b != 0u || B_STRIPS);
    f.b[e] = load_b(batch, k0 + sb.y, col0 + sb.x, k_end);
  }
  return f;
}

fn stage(f: Fetched, index: u32, half: u32) {
  for (var e = 0u; e < 4u; e++) {
    let flat = e * 256u + index;
    let sa = slot(flat, p.trans_a == 0u);
    a_tile[half][sa.x / 4u][sa.y][sa.x % 4u] = f.a[e];
    let sb = slot(flat, p.trans_b != 0u || B_STRIPS);
    b_tile[half][sb.x / 4u][sb.y][sb.x % 4u] = f.b[e];
  }
}
