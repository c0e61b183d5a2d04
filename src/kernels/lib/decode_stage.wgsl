// The decode kernels' input vector in workgroup memory where it is computed (a LayerNorm's
// output, the merged attention heads): once per workgroup, then read by every thread's dot
// products. Widths up to STAGE.
const STAGE: u32 = 2048u;
var<workgroup> staged: array<f32, STAGE>;

// The staged vector as a product's input (lib/decode_gemv.wgsl's gemv_input).
fn gemv_input(row: u32) -> f32 {
  return staged[row];
}
