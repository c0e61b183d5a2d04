// GPT-2's tanh GELU ("gelu_new"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Shared by gelu.wgsl
// and the products' epilogue (lib/gemm_epilogue.wgsl).
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;

fn gelu_tanh(v: f32) -> f32 {
  let u = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v);
  // Some backends build tanh from exp(2u), which overflows to inf/inf = NaN for large |u|;
  // tanh is ±1 in f32 well before |u| = 10, so clamping changes no result.
  return 0.5 * v * (1.0 + tanh(clamp(u, -10.0, 10.0)));
}
