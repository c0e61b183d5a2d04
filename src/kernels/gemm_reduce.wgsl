// Finishes a split-k product (gemv.wgsl or a tiled kernel with several splits): sums partials
// [nsplit][batch][m][n] over the splits, applies the epilogue (scale, bias, GELU, residual:
// lib/gemm_epilogue.wgsl) and writes into the (possibly wider) output at out_col_offset. One
// thread per output element, the grid folded into y past 65535 groups.
//! include "gemm_params.wgsl"
@group(0) @binding(1) var<storage, read> partials: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;      // partials again when unused
@group(0) @binding(3) var<storage, read> residual: array<f32>;  // partials again when unused
@group(0) @binding(4) var<storage, read_write> c: array<f32>;
//! include "gemm_epilogue.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  let outputs = p.batch * p.m * p.n;
  if (i >= outputs) {
    return;
  }
  var sum = 0.0;
  for (var s = 0u; s < p.nsplit; s++) {
    sum += partials[s * outputs + i];
  }
  let col = i % p.n;
  let row = i / p.n;  // batch * m + row
  let at = row * p.out_row_stride + p.out_col_offset + col;
  c[at] = finish(sum, col, at);
}
