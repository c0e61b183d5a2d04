// Shared by every GEMM kernel: what happens to a finished sum before it is stored. The product's
// scale and bias, then GPT-2's GELU when the epilogue asks for it, then a residual read at the
// output's own index (x + f(x)'s sublayer output in one pass). Needs gemm_params.wgsl and the
// includer's bindings `bias` and `residual` (other operands again when unused).
//! include "gelu_tanh.wgsl"
const EPILOGUE_GELU: u32 = 1u;
const EPILOGUE_RESIDUAL: u32 = 2u;

fn finish(sum: f32, col: u32, out_index: u32) -> f32 {
  var value = sum * p.scale;
  if (p.has_bias != 0u) {
    value += bias[col];
  }
  if ((p.epilogue & EPILOGUE_GELU) != 0u) {
    value = gelu_tanh(value);
  }
  if ((p.epilogue & EPILOGUE_RESIDUAL) != 0u) {
    value += residual[out_index];
  }
  return value;
}
