// split_heads' gradient: dq, dk, dv [n_head, t, head_dim] → dqkv [t, 3C]. One thread per element
// of dqkv gathers it from the head tensor split_heads sent it to, so every element is written
// (grid folded into y past 65535 groups).
struct Params {
  n: u32,  // t * 3C
  t: u32,
  cols: u32,  // C
  head_dim: u32,
}

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> dq: array<f32>;
@group(0) @binding(2) var<storage, read> dk: array<f32>;
@group(0) @binding(3) var<storage, read> dv: array<f32>;
@group(0) @binding(4) var<storage, read_write> dqkv: array<f32>;

//! include "qkv_head_slot.wgsl"

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * 256u + lid;
  if (i >= p.n) {
    return;
  }
  let slot = qkv_head_slot(i);
  let part = slot.x;  // 0 = q, 1 = k, 2 = v
  let src = slot.y;
  if (part == 0u) {
    dqkv[i] = dq[src];
  } else if (part == 1u) {
    dqkv[i] = dk[src];
  } else {
    dqkv[i] = dv[src];
  }
}
