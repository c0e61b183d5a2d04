// Shared by the decode kernels that start with a LayerNorm of the residual stream `x` [width] (up
// to 2048): every workgroup computes the statistics itself (a few KB read from cache) rather than
// wait for a separate dispatch. Each thread reads its elements of x once — worker, worker + 256,
// ... — keeps them in registers for both statistics, and writes their normalized values into
// `staged`. The includer declares `x` [width] and `ln_params` [2, width] (gamma, then beta),
// includes decode_stage.wgsl and a reduce_* library (256 threads).

var<private> ln_values: array<f32, 8>;
var<private> ln_gamma: array<f32, 8>;
var<private> ln_beta: array<f32, 8>;

// LN(x) into staged[0 .. width): mean and 1/sqrt(var + eps) as PyTorch (biased variance). x,
// gamma and beta are all loaded first, so their latencies overlap, and both statistics come from
// one reduction, of the sums of d and d² with d = x − x[0] (shifted, so that the variance
// E[d²] − E[d]² does not cancel as E[x²] − E[x]² would when the mean is large against the spread).
fn ln_stage(width: u32, eps: f32) {
  let shift = x[0];
  for (var j = 0u; j < 8u; j++) {
    let i = worker + j * 256u;
    ln_values[j] = 0.0;
    if (i < width) {
      ln_values[j] = x[i];
      ln_gamma[j] = ln_params[i];
      ln_beta[j] = ln_params[width + i];
    }
  }
  var sums = vec2<f32>(0.0);
  for (var j = 0u; j < 8u; j++) {
    let d = select(0.0, ln_values[j] - shift, worker + j * 256u < width);
    sums += vec2<f32>(d, d * d);
  }
  let moments = workgroup_sum2(sums) / f32(width);  // E[d], E[d²]
  let mean = shift + moments.x;
  let rstd = 1.0 / sqrt(max(moments.y - moments.x * moments.x, 0.0) + eps);
  for (var j = 0u; j < 8u; j++) {
    let i = worker + j * 256u;
    if (i < width) {
      staged[i] = (ln_values[j] - mean) * rstd * ln_gamma[j] + ln_beta[j];
    }
  }
}
