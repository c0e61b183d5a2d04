// The subgroup operations reduce_subgroup.wgsl uses, each under a name of its own with one type:
// the only place that kernel family touches subgroups. Tests on adapters without subgroups
// (llvmpipe) put an emulation with the same names in its place (tests/gpu/
// subgroup_ops_emulated.wgsl), so that the subgroup reductions run there too.
enable subgroups;

struct Invocation {
  @builtin(local_invocation_index) local: u32,
  @builtin(subgroup_invocation_id) lane: u32,
}

fn invocation_lane(invocation: Invocation) -> u32 {
  return invocation.lane;
}

fn lanes_first(v: u32) -> u32 {
  return subgroupBroadcastFirst(v);
}

fn lanes_sum(v: f32) -> f32 {
  return subgroupAdd(v);
}

fn lanes_sum2(v: vec2<f32>) -> vec2<f32> {
  return subgroupAdd(v);
}

fn lanes_max(v: f32) -> f32 {
  return subgroupMax(v);
}

fn lanes_min_u32(v: u32) -> u32 {
  return subgroupMin(v);
}

fn lanes_xor(v: f32, mask: u32) -> f32 {
  return subgroupShuffleXor(v, mask);
}

fn lanes_xor4(v: vec4<f32>, mask: u32) -> vec4<f32> {
  return subgroupShuffleXor(v, mask);
}
