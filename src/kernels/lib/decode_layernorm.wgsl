// Shared by the decode kernels that start with a LayerNorm of the residual stream `x` [width]:
// every workgroup computes the mean and 1/σ itself (a few KB read from cache), which costs less
// than a separate dispatch. The includer declares `x` [width] and `ln_params` [2, width] (gamma,
// then beta), both read-only storage.

var<workgroup> ln_sums: array<f32, 256>;
var<workgroup> ln_mean_rstd: vec2<f32>;

fn ln_reduce(local: u32, value: f32) -> f32 {
  workgroupBarrier();  // the previous reduction's result may still be being read
  ln_sums[local] = value;
  for (var stride = 128u; stride > 0u; stride /= 2u) {
    workgroupBarrier();
    if (local < stride) {
      ln_sums[local] += ln_sums[local + stride];
    }
  }
  workgroupBarrier();
  return ln_sums[0];
}

// Mean and 1/sqrt(var + eps) of x[0..width), as PyTorch (biased variance, mean first).
fn ln_statistics(local: u32, width: u32, eps: f32) {
  var sum = 0.0;
  for (var i = local; i < width; i += 256u) {
    sum += x[i];
  }
  let mean = ln_reduce(local, sum) / f32(width);
  var squares = 0.0;
  for (var i = local; i < width; i += 256u) {
    let d = x[i] - mean;
    squares += d * d;
  }
  let variance = ln_reduce(local, squares) / f32(width);
  if (local == 0u) {
    ln_mean_rstd = vec2<f32>(mean, 1.0 / sqrt(variance + eps));
  }
  workgroupBarrier();
}

fn ln_normalized(i: u32, width: u32) -> f32 {
  let stats = ln_mean_rstd;
  return (x[i] - stats.x) * stats.y * ln_params[i] + ln_params[width + i];
}
