// Shared by split_heads.wgsl and split_heads_backward.wgsl: where element i of a fused QKV
// [t, 3C] belongs once split into heads — x: 0 for q, 1 for k, 2 for v; y: its index in that
// [n_head, t, head_dim] tensor. The includer declares `p.t`, `p.cols` (C) and `p.head_dim`.
fn qkv_head_slot(i: u32) -> vec2<u32> {
  let token = i / (3u * p.cols);
  let col = i % (3u * p.cols);
  let within = col % p.cols;
  let head = within / p.head_dim;
  return vec2<u32>(col / p.cols, (head * p.t + token) * p.head_dim + within % p.head_dim);
}
