// C = scale · op(A) · op(B) + bias for small m (the decode step's m = 1): one thread per output
// column for up to 4 rows, so B is streamed once per 4 rows and A (the same value for every thread)
// is read straight from global memory, no workgroup memory, no barriers. The k range is split
// (split-k) so that a narrow output still fills the device: workgroup (x, y, z) covers columns
// 64x.., split y / row_blocks, rows 4·(y % row_blocks).., batch z. With one split the epilogue
// (lib/gemm_epilogue.wgsl: scale, bias, GELU, residual) and the column offset are applied here;
// otherwise raw partial sums go to c = partials [nsplit][batch][m][n] and gemm_reduce finishes.
// B is stored as f32, f16, bf16 or q4 (the DTYPE variants), row-major or in column strips (the
// LAYOUT variants).
//! variants DTYPE f32 f16 bf16 q4
//! variants LAYOUT rows strips
//! include "gemm_params.wgsl"
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<b_word>;
//! include "load1_{DTYPE}.wgsl" for b
@group(0) @binding(3) var<storage, read> bias: array<f32>;  // A again when there is no bias
@group(0) @binding(4) var<storage, read> residual: array<f32>;  // A again when unused
@group(0) @binding(5) var<storage, read_write> c: array<f32>;
//! include "gemm_epilogue.wgsl"

fn load_a(batch: u32, row: u32, kk: u32) -> f32 {
  if (row >= p.m) {
    return 0.0;
  }
  let base = batch * p.a_batch_stride;
  if (p.trans_a != 0u) {
    return a[base + kk * p.m + row];
  }
  return a[base + row * p.k + kk];
}

fn load_b(batch: u32, kk: u32, col: u32) -> f32 {
  if (B_STRIPS) {
    return b_strip_at(kk, col, p.k, p.n);
  }
  let base = batch * p.b_batch_stride;
  if (p.trans_b != 0u) {
    return b_at(base + col * p.k + kk);
  }
  return b_at(base + kk * p.n + col);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let col = wid.x * 64u + lid;
  if (col >= p.n) {
    return;
  }
  let batch = wid.z;
  let row_blocks = (p.m + 3u) / 4u;
  let split = wid.y / row_blocks;
  let row0 = (wid.y % row_blocks) * 4u;
  let k_begin = split * p.k_per_split;
  let k_end = min(p.k, k_begin + p.k_per_split);
  var acc = vec4<f32>(0.0);
  for (var kk = k_begin; kk < k_end; kk++) {
    let av = vec4<f32>(load_a(batch, row0, kk), load_a(batch, row0 + 1u, kk),
                       load_a(batch, row0 + 2u, kk), load_a(batch, row0 + 3u, kk));
    acc = fma(av, vec4<f32>(load_b(batch, kk, col)), acc);
  }
  for (var i = 0u; i < 4u; i++) {
    let row = row0 + i;
    if (row < p.m) {
      if (p.nsplit == 1u) {
        let at = (batch * p.m + row) * p.out_row_stride + p.out_col_offset + col;
        c[at] = finish(acc[i], col, at);
      } else {
        c[((split * p.batch + batch) * p.m + row) * p.n + col] = acc[i];
      }
    }
  }
}
