// The operands of the tensor-core block (lib/matmul_tensor_block.wgsl) read a vec4 at a time
// along their contiguous axis. ops/gemm.cpp takes it only when that axis's length (k, or m for a
// transposed A; n for B, or k for a transposed B) and both batch strides are multiples of 4, so
// that every vec4 lies inside one row and is aligned.
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;

const OPERAND_WIDTH: u32 = 4u;
const A_LOADS: u32 = BM * BK / 4u / THREADS;
const B_LOADS: u32 = BK * BN / 4u / THREADS;

struct Fetched {
  a: array<vec4<f32>, A_LOADS>,
  b: array<vec4<f32>, B_LOADS>,
}

fn fetch(batch: u32, row0: u32, col0: u32, k0: u32, k_end: u32, li: u32) -> Fetched {
  var f: Fetched;
  for (var i = 0u; i < A_LOADS; i++) {
    let s = a_slot(li + i * THREADS);
    let row = row0 + s.x;
    let kk = k0 + s.y;
    if (row < p.m && kk < k_end) {
      if (p.trans_a == 0u) {
        f.a[i] = a[(batch * p.a_batch_stride + row * p.k + kk) / 4u];
      } else {
        f.a[i] = a[(batch * p.a_batch_stride + kk * p.m + row) / 4u];
      }
    }
  }
  for (var i = 0u; i < B_LOADS; i++) {
    let s = b_slot(li + i * THREADS);
    let col = col0 + s.x;
    let kk = k0 + s.y;
    if (col < p.n && kk < k_end) {
      if (p.trans_b != 0u) {
        f.b[i] = b[(batch * p.b_batch_stride + col * p.k + kk) / 4u];
      } else {
        f.b[i] = b[(batch * p.b_batch_stride + kk * p.n + col) / 4u];
      }
    }
  }
  return f;
}

fn stage(f: Fetched, li: u32) {
  let scales = operand_scales();
  for (var i = 0u; i < A_LOADS; i++) {
    let s = a_slot(li + i * THREADS);
    let v = f.a[i] * scales.x;
    for (var j = 0u; j < 4u; j++) {
      stage_a(s, j, v[j]);
    }
  }
  for (var i = 0u; i < B_LOADS; i++) {
    let s = b_slot(li + i * THREADS);
    let v = f.b[i] * scales.y;
    for (var j = 0u; j < 4u; j++) {
      stage_b(s, j, v[j]);
    }
  }
}
