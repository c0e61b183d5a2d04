// dx = gelu′(x) · dy for GPT-2's tanh GELU, elementwise. With u = √(2/π)·(x + 0.044715·x³):
// gelu′(x) = 0.5·(1 + tanh u) + 0.5·x·(1 − tanh² u)·√(2/π)·(1 + 3·0.044715·x²).
struct Params {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

const SQRT_2_OVER_PI: f32 = 0.7978845608028654;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let v = x[i];
  // Clamped as in gelu.wgsl: tanh built from exp(2u) would give inf/inf for large |u|.
  let th = tanh(clamp(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v), -10.0, 10.0));
  let slope = 0.5 * (1.0 + th) +
              0.5 * v * (1.0 - th * th) * SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * v * v);
  dx[i] = slope * dy[i];
}
