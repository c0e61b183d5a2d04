// The 128×128-block GEMM (lib/matmul_wide_block.wgsl) reading its operands a vec4 at a time along
// their contiguous axis: a quarter of the load instructions and bounds checks of
// matmul_wide.wgsl. ops/gemm.cpp takes it only when that axis's length (k, or m for a transposed
// A, n for an untransposed B) and both batch strides are multiples of 4, so that every vec4 lies
// inside one row and is aligned. B is stored as f32, f16, bf16 or q4 (the DTYPE variants; a packed
// B also needs a multiple of 8 elements, its words holding 8), row-major or in column strips (the
// LAYOUT variants).
//! variants DTYPE f32 f16 bf16 q4
//! variants LAYOUT rows strips
// A thread stages one vec4 of each operand per tile: along k, 2 threads cover a row's 8 values of
// the tile; across rows or columns, 32 threads cover one k row. Consecutive threads walk the
// contiguous axis either way.
//! include "matmul_wide_block.wgsl"

@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<b_word>;
//! include "load8_{DTYPE}.wgsl" for b

// A's vec4 at (row, kk) — elements (row, kk + j), or (row + j, kk) when `along_rows` (a transposed
// A) — with the product's triangle's zeros.
fn triangle_masked(v: vec4<f32>, row: u32, kk: u32, along_rows: bool) -> vec4<f32> {
  if (!triangle_in_a()) {
    return v;
  }
  var masked = v;
  for (var j = 0u; j < 4u; j++) {
    let reads = select(triangle_reads_a(row, kk + j), triangle_reads_a(row + j, kk), along_rows);
    masked[j] = select(0.0, v[j], reads);
  }
  return masked;
}

// The vec4 of an untransposed B's 8 × 128 tile that thread `index` stages, as (column / 4, kk):
// consecutive threads walk what is contiguous — a row's columns (row-major), or in column strips
// a strip's 8 columns, then its 8 rows, then the next strip (a warp's loads: two lines of f16).
fn b_rows_slot(index: u32) -> vec2<u32> {
  if (B_STRIPS) {
    return vec2<u32>((index / 16u) * 2u + index % 2u, (index / 2u) % 8u);
  }
  return vec2<u32>(index % 32u, index / 32u);
}

fn fetch(batch: u32, row0: u32, col0: u32, k0: u32, k_end: u32, index: u32) -> Fetched {
  var f: Fetched;
  if (p.trans_a == 0u) {
    let row = row0 + index / 2u;
    let kk = k0 + (index % 2u) * 4u;
    if (row < p.m && kk < k_end) {
      f.a = triangle_masked(a[(batch * p.a_batch_stride + row * p.k + kk) / 4u], row, kk, false);
    }
  } else {
    let kk = k0 + index / 32u;
    let row = row0 + (index % 32u) * 4u;
    if (kk < k_end && row < p.m) {
      f.a = triangle_masked(a[(batch * p.a_batch_stride + kk * p.m + row) / 4u], row, kk, true);
    }
  }
  if (p.trans_b != 0u) {
    let col = col0 + index / 2u;
    let kk = k0 + (index % 2u) * 4u;
    if (col < p.n && kk < k_end) {
      f.b = b_at4((batch * p.b_batch_stride + col * p.k + kk) / 4u);
    }
  } else {
    let at = b_rows_slot(index);
    let kk = k0 + at.y;
    let col = col0 + at.x * 4u;
    if (kk < k_end && col < p.n) {
      if (B_STRIPS) {
        f.b = b_strip_at4(kk, col, p.k, p.n);
      } else {
        f.b = b_at4((batch * p.b_batch_stride + kk * p.n + col) / 4u);
      }
    }
  }
  return f;
}

fn stage(f: Fetched, index: u32, half: u32) {
  if (p.trans_a == 0u) {
    let row = index / 2u;
    let kq = (index % 2u) * 4u;
    for (var j = 0u; j < 4u; j++) {
      a_tile[half][row / 4u][kq + j][row % 4u] = f.a[j];
    }
  } else {
    a_tile[half][index % 32u][index / 32u] = f.a;
  }
  if (p.trans_b != 0u) {
    let col = index / 2u;
    let kq = (index % 2u) * 4u;
    for (var j = 0u; j < 4u; j++) {
      b_tile[half][col / 4u][kq + j][col % 4u] = f.b[j];
    }
  } else {
    let at = b_rows_slot(index);
    b_tile[half][at.x][at.y] = f.b;
  }
}
