// The subgroup operations of src/kernels/lib/subgroup_ops.wgsl, emulated with workgroup memory and
// barriers, so that the subgroup reductions (reduce_subgroup.wgsl) run on an adapter without
// subgroups. Subgroups of 32 lanes, laid out as LAYOUT says: CONSECUTIVE, lane = local % 32 (as on
// every GPU seen so far); STRIDED, lane = local / (REDUCE_THREADS / 32); or MIXED, the first half
// of the blocks of 32 local indices consecutive and the rest strided among themselves, lanes
// reversed. The subgroup reductions assume the first; the others are for the probe of the layout
// (src/kernels/lib/subgroup_layout.wgsl), which must refuse them. decode_ops_test puts this text in
// place of subgroup_ops.wgsl after a line `const LAYOUT: u32 = ...;`. Every operation is reached
// in uniform control flow (the barrier forms in reduce_barrier.wgsl hold barriers at the same
// places), so a barrier can stand in for the lanes' exchange.

struct Invocation {
  @builtin(local_invocation_index) local: u32,
}

const EMULATED_GROUPS: u32 = REDUCE_THREADS / 32u;
const CONSECUTIVE: u32 = 0u;
const STRIDED: u32 = 1u;
const MIXED: u32 = 2u;

var<private> emulated_local: u32;
var<workgroup> emulated_words: array<u32, REDUCE_THREADS>;
var<workgroup> emulated_values: array<vec4<f32>, REDUCE_THREADS>;

// MIXED: the blocks from MIXED_FIRST on are strided among themselves, MIXED_REST subgroups.
const MIXED_FIRST: u32 = EMULATED_GROUPS / 2u;
const MIXED_REST: u32 = EMULATED_GROUPS - MIXED_FIRST;

fn emulated_lane(local: u32) -> u32 {
  if (LAYOUT == STRIDED) {
    return local / EMULATED_GROUPS;
  }
  if (LAYOUT == MIXED && local >= MIXED_FIRST * 32u) {
    return 31u - (local - MIXED_FIRST * 32u) / MIXED_REST;
  }
  return local % 32u;
}

// The local index of lane `l` of this thread's subgroup.
fn emulated_member(l: u32) -> u32 {
  if (LAYOUT == STRIDED) {
    return l * EMULATED_GROUPS + emulated_local % EMULATED_GROUPS;
  }
  if (LAYOUT == MIXED && emulated_local >= MIXED_FIRST * 32u) {
    let group = (emulated_local - MIXED_FIRST * 32u) % MIXED_REST;
    return MIXED_FIRST * 32u + (31u - l) * MIXED_REST + group;
  }
  return emulated_local / 32u * 32u + l;
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
