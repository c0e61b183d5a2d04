// A router over n rows of x [n, cols] with scores [n]:
//   weights = softmax(−beta · scores),  mixed[c] = Σ_i weights[i] · x[i, c].
// One thread per column and per weight (max(n, cols) threads, 256 per workgroup, folded into y):
// each thread recomputes the n-way softmax, which is cheap because n (the council's experts) is
// small; thread i < n also writes weights[i]. Assumes n ≥ 1 and beta ≥ 0.
struct Params {
  n: u32,
  cols: u32,
  beta: f32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> scores: array<f32>;
@group(0) @binding(3) var<storage, read_write> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> mixed: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= max(p.n, p.cols)) {
    return;
  }
  var lowest = scores[0];
  for (var k = 1u; k < p.n; k++) {
    lowest = min(lowest, scores[k]);
  }
  var total = 0.0;
  for (var k = 0u; k < p.n; k++) {
    total += exp(-p.beta * (scores[k] - lowest));
  }
  if (i < p.n) {
    weights[i] = exp(-p.beta * (scores[i] - lowest)) / total;
  }
  if (i < p.cols) {
    var sum = 0.0;
    for (var k = 0u; k < p.n; k++) {
      sum += exp(-p.beta * (scores[k] - lowest)) / total * x[k * p.cols + i];
    }
    mixed[i] = sum;
  }
}
