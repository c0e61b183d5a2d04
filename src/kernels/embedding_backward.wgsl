// The token and position tables' gradients, one thread per element of either table (the token
// table's elements first; grid folded into y past 65535 groups):
//   dwte[v, c] = Σ dy[i, c] over the tokens i with id v, in token order: the host groups the token
//                indices by id (order[first[v] .. first[v + 1]]), so no two threads write one
//                element and no atomics are needed (the sum is deterministic);
//   dwpe[p, c] = Σ_b dy[b · seq_len + p, c] for p < seq_len, 0 for the positions past it.
struct Params {
  vocab: u32,
  cols: u32,
  n_positions: u32,
  seq_len: u32,
  n_sequences: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> first: array<u32>;  // [vocab + 1]
@group(0) @binding(2) var<storage, read> order: array<u32>;  // [tokens]
@group(0) @binding(3) var<storage, read> dy: array<f32>;     // [tokens, cols]
@group(0) @binding(4) var<storage, read_write> dwte: array<f32>;
@group(0) @binding(5) var<storage, read_write> dwpe: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  let token_elements = p.vocab * p.cols;
  if (i < token_elements) {
    let row = i / p.cols;
    let col = i % p.cols;
    var sum = 0.0;
    for (var j = first[row]; j < first[row + 1u]; j++) {
      sum += dy[order[j] * p.cols + col];
    }
    dwte[i] = sum;
    return;
  }
  let k = i - token_elements;
  if (k >= p.n_positions * p.cols) {
    return;
  }
  let position = k / p.cols;
  let col = k % p.cols;
  var sum = 0.0;
  if (position < p.seq_len) {
    for (var b = 0u; b < p.n_sequences; b++) {
      sum += dy[(b * p.seq_len + position) * p.cols + col];
    }
  }
  dwpe[k] = sum;
}
