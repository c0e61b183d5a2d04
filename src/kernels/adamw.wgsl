// One AdamW update in place, in PyTorch's order (torch.optim.AdamW, single-tensor form):
//   param ·= 1 − lr · wd;  m ← m + (1 − β1)(g − m);  v ← β2 · v + (1 − β2) · g²;
//   param −= step_size · m / (√v / √bc2 + eps), step_size = lr / bc1,
// with the bias corrections bc1 = 1 − β1^t and bc2 = 1 − β2^t from the host. g is the stored
// gradient divided by grad_scale (loss scaling); with clip > 0, also times
// min(1, clip / (‖g‖ + 1e-6)), the global norm ‖g‖ = √sum_of_squares[0] / grad_scale computed on
// the device (no round trip to the host). One thread per element.
struct Params {
  n: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  weight_decay: f32,
  bias_correction1: f32,
  bias_correction2_sqrt: f32,
  clip: f32,
  grad_scale: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;
@group(0) @binding(2) var<storage, read> sum_of_squares: array<f32>;
@group(0) @binding(3) var<storage, read_write> param: array<f32>;
@group(0) @binding(4) var<storage, read_write> m: array<f32>;
@group(0) @binding(5) var<storage, read_write> v: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let unscale = 1.0 / p.grad_scale;
  var g = grad[i] * unscale;
  if (p.clip > 0.0) {
    g *= min(1.0, p.clip / (sqrt(sum_of_squares[0]) * unscale + 1e-6));
  }
  let decayed = param[i] * (1.0 - p.lr * p.weight_decay);
  let m_new = m[i] + (1.0 - p.beta1) * (g - m[i]);
  let v_new = p.beta2 * v[i] + (1.0 - p.beta2) * g * g;
  m[i] = m_new;
  v[i] = v_new;
  let step_size = p.lr / p.bias_correction1;
  param[i] = decayed - step_size * m_new / (sqrt(v_new) / p.bias_correction2_sqrt + p.eps);
}
