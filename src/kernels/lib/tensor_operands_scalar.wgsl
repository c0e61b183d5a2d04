// The operands of the tensor-core block (lib/matmul_tensor_block.wgsl) read one float at a time:
// any layout, size and batch stride.
//! include "gemm_scalar_operands.wgsl"

const OPERAND_WIDTH: u32 = 1u;
const A_LOADS: u32 = BM * BK / THREADS;
const B_LOADS: u32 = BK * BN / THREADS;

struct Fetched {
  a: array<f32, A_LOADS>,
  b: array<f32, B_LOADS>,
}

fn fetch(batch: u32, row0: u32, col0: u32, k0: u32, k_end: u32, li: u32) -> Fetched {
  var f: Fetched;
  for (var i = 0u; i < A_LOADS; i++) {
    let s = a_slot(li + i * THREADS);
    f.a[i] = load_a(batch, row0 + s.x, k0 + s.y, k_end);
  }
  for (var i = 0u; i < B_LOADS; i++) {
    let s = b_slot(li + i * THREADS);
    f.b[i] = load_b(batch, k0 + s.y, col0 + s.x, k_end);
  }
  return f;
}

fn stage(f: Fetched, li: u32) {
  let scales = operand_scales();
  for (var i = 0u; i < A_LOADS; i++) {
    stage_a(a_slot(li + i * THREADS), 0u, f.a[i] * scales.x);
  }
  for (var i = 0u; i < B_LOADS; i++) {
    stage_b(b_slot(li + i * THREADS), 0u, f.b[i] * scales.y);
  }
}
