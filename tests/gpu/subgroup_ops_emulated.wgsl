// The subgroup operations of src/kernels/lib/subgroup_ops.wgsl, emulated with workgroup memory and
// barriers, so that the subgroup reductions (reduce_subgroup.wgsl) run on an adapter without
// subgroups. Subgroups of 32 lanes: lane = local % 32 (consecutive local indices, as on every GPU
// seen so far), or with SCRAMBLED lane = local / (REDUCE_THREADS / 32), which sends
// reduce_begin's numbering through its workgroup atomic. decode_ops_test puts this text in place
// of subgroup_ops.wgsl after a line `const SCRAMBLED: bool = ...;`. Every operation is reached in
// uniform control flow (the barrier forms in reduce_barrier.wgsl hold barriers at the same
// places), so a barrier can stand in for the lanes' exchange.

struct Invocation {
  @builtin(local_invocation_index) local: u32,
}

const EMULATED_GROUPS: u32 = REDUCE_THREADS / 32u;

var<private> emulated_local: u32;
var<workgroup> emulated_words: array<u32, REDUCE_THREADS>;
var<workgroup> emulated_values: array<vec4<f32>, REDUCE_THREADS>;

fn emulated_lane(local: u32) -> u32 {
  return select(local % 32u, local / EMULATED_GROUPS, SCRAMBLED);
}

// The local index of lane `l` of this thread's subgroup.
fn emulated_member(l: u32) -> u32 {
  let group = select(emulated_local / 32u, emulated_local % EMULATED_GROUPS, SCRAMBLED);
  return select(group * 32u + l, l * EMULATED_GROUPS + group, SCRAMBLED);
}

// reduce_begin asks this first, before any other operation.
fn invocation_lane(invocation: Invocation) -> u32 {
  emulated_local = invocation.local;
  return emulated_lane(invocation.local);
}

fn share_word(v: u32) {
  workgroupBarrier();
  emulated_words[emulated_local] = v;
  workgroupBarrier();
}

fn share_value(v: vec4<f32>) {
  workgroupBarrier();
  emulated_values[emulated_local] = v;
  workgroupBarrier();
}

fn lanes_first(v: u32) -> u32 {
  share_word(v);
  return emulated_words[emulated_member(0u)];
}

fn lanes_all(condition: bool) -> bool {
  share_word(select(0u, 1u, condition));
  var all = true;
  for (var l = 0u; l < 32u; l++) {
    all = all && emulated_words[emulated_member(l)] == 1u;
  }
  return all;
}

fn lanes_elect() -> bool {
  return emulated_lane(emulated_local) == 0u;
}

fn lanes_sum4(v: vec4<f32>) -> vec4<f32> {
  share_value(v);
  var total = vec4<f32>(0.0);
  for (var l = 0u; l < 32u; l++) {
    total += emulated_values[emulated_member(l)];
  }
  return total;
}

fn lanes_sum(v: f32) -> f32 {
  return lanes_sum4(vec4<f32>(v, 0.0, 0.0, 0.0)).x;
}

fn lanes_sum2(v: vec2<f32>) -> vec2<f32> {
  return lanes_sum4(vec4<f32>(v, 0.0, 0.0)).xy;
}

fn lanes_max(v: f32) -> f32 {
  share_value(vec4<f32>(v, 0.0, 0.0, 0.0));
  var largest = emulated_values[emulated_member(0u)].x;
  for (var l = 1u; l < 32u; l++) {
    largest = max(largest, emulated_values[emulated_member(l)].x);
  }
  return largest;
}

fn lanes_min_u32(v: u32) -> u32 {
  share_word(v);
  var least = emulated_words[emulated_member(0u)];
  for (var l = 1u; l < 32u; l++) {
    least = min(least, emulated_words[emulated_member(l)]);
  }
  return least;
}

fn lanes_xor4(v: vec4<f32>, mask: u32) -> vec4<f32> {
  share_value(v);
  return emulated_values[emulated_member(emulated_lane(emulated_local) ^ mask)];
}

fn lanes_xor(v: f32, mask: u32) -> f32 {
  return lanes_xor4(vec4<f32>(v, 0.0, 0.0, 0.0), mask).x;
}
