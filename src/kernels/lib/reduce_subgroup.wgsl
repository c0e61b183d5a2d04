// Workgroup reductions with subgroup operations: the REDUCE=subgroup form of the reduce_* family
// (see reduce_barrier.wgsl for the contract). Subgroups of SUBGROUP lanes each reduce in registers
// and meet once in workgroup memory, so a reduction costs one or two barriers instead of one per
// halving. Threads that reduce together must share a subgroup: the host takes this form only
// where the adapter's subgroups all have 32 lanes and a probe found every subgroup of 64- and
// 256-thread workgroups to be 32 consecutive local indices from a multiple of 32, in lane order
// (gpu/subgroup_layout.h; every GPU we have seen), so a thread's subgroup is its local index / 32.
// (Checking that in every workgroup took a barrier at each kernel's start: 2% of a decode step on
// the H200, 4% without WebGPU's checks.) Every subgroup operation goes through subgroup_ops.wgsl.

const SUBGROUP: u32 = 32u;
const SUBGROUPS: u32 = REDUCE_THREADS / SUBGROUP;

//! include "best_order.wgsl"
//! include "subgroup_ops.wgsl"

var<private> worker: u32;
var<private> lane: u32;
var<workgroup> reduce_scratch: array<vec4<f32>, REDUCE_THREADS>;

fn reduce_begin(invocation: Invocation) {
  lane = invocation_lane(invocation);
  worker = invocation.local;
}

// Every subgroup's `value` (from its lane 0) into reduce_scratch[subgroup], then read back whole.
fn reduce_meet(value: vec4<f32>) {
  workgroupBarrier();
  if (lane == 0u) {
    reduce_scratch[worker / SUBGROUP] = value;
  }
  workgroupBarrier();
}

// Σ over the subgroups' met values.
fn met_sum() -> vec4<f32> {
  var total = vec4<f32>(0.0);
  for (var g = 0u; g < SUBGROUPS; g++) {
    total += reduce_scratch[g];
  }
  return total;
}

fn workgroup_sum(v: f32) -> f32 {
  reduce_meet(vec4<f32>(lanes_sum(v), 0.0, 0.0, 0.0));
  return met_sum().x;
}

fn workgroup_sum2(v: vec2<f32>) -> vec2<f32> {
  reduce_meet(vec4<f32>(lanes_sum2(v), 0.0, 0.0));
  return met_sum().xy;
}

fn workgroup_max(v: f32) -> f32 {
  reduce_meet(vec4<f32>(lanes_max(v), 0.0, 0.0, 0.0));
  var largest = reduce_scratch[0].x;
  for (var g = 1u; g < SUBGROUPS; g++) {
    largest = max(largest, reduce_scratch[g].x);
  }
  return largest;
}

// Σ of v over the lanes of this subgroup that share this one's column, valid in lanes < tx. tx is
// at most SUBGROUP: lanes that differ by a multiple of tx share a column, so shuffles fold a
// subgroup onto its first tx lanes.
fn fold_lanes(v: vec4<f32>, tx: u32) -> vec4<f32> {
  var s = v;
  for (var offset = SUBGROUP / 2u; offset > 0u; offset /= 2u) {
    let other = lanes_xor4(s, offset);
    if (offset >= tx) {
      s += other;
    }
  }
  return s;
}

// See reduce_barrier.wgsl.
fn slices_sum(v: vec4<f32>, tx: u32) -> vec4<f32> {
  let s = fold_lanes(v, tx);
  workgroupBarrier();
  if (lane < tx) {
    reduce_scratch[worker / SUBGROUP * tx + lane] = s;
  }
  workgroupBarrier();
  var total = vec4<f32>(0.0);
  if (worker < tx) {
    for (var g = 0u; g < SUBGROUPS; g++) {
      total += reduce_scratch[g * tx + worker];
    }
  }
  return total;
}

// See reduce_barrier.wgsl. Both halves meet in one round (two barriers, not four) where the
// scratch holds two vec4s for every (subgroup, column thread) pair: tx up to 16.
fn slices_sum8(v: mat2x4<f32>, tx: u32) -> mat2x4<f32> {
  if (2u * SUBGROUPS * tx > REDUCE_THREADS) {
    return mat2x4<f32>(slices_sum(v[0], tx), slices_sum(v[1], tx));
  }
  let s = mat2x4<f32>(fold_lanes(v[0], tx), fold_lanes(v[1], tx));
  workgroupBarrier();
  if (lane < tx) {
    let slot = 2u * (worker / SUBGROUP * tx + lane);
    reduce_scratch[slot] = s[0];
    reduce_scratch[slot + 1u] = s[1];
  }
  workgroupBarrier();
  var total = mat2x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0));
  if (worker < tx) {
    for (var g = 0u; g < SUBGROUPS; g++) {
      let slot = 2u * (g * tx + worker);
      total += mat2x4<f32>(reduce_scratch[slot], reduce_scratch[slot + 1u]);
    }
  }
  return total;
}

// See reduce_barrier.wgsl; the eight are consecutive lanes of one subgroup.
fn octet_sum(v: f32) -> f32 {
  var s = v;
  for (var offset = 4u; offset > 0u; offset /= 2u) {
    s += lanes_xor(s, offset);
  }
  return s;
}

// See reduce_barrier.wgsl: the largest value, the lowest index on ties, over valid candidates.
fn workgroup_best(value: f32, index: u32) -> vec2<u32> {
  let valid = index != 0xffffffffu;
  let largest = lanes_max(select(bitcast<f32>(0xff7fffffu), value, valid));
  let first = lanes_min_u32(select(0xffffffffu, index, valid && value == largest));
  workgroupBarrier();
  if (lane == 0u) {
    reduce_scratch[worker / SUBGROUP] = vec4<f32>(largest, bitcast<f32>(first), 0.0, 0.0);
  }
  workgroupBarrier();
  var best_value = reduce_scratch[0].x;
  var best_index = bitcast<u32>(reduce_scratch[0].y);
  for (var g = 1u; g < SUBGROUPS; g++) {
    let candidate = reduce_scratch[g];
    if (better(candidate.x, bitcast<u32>(candidate.y), best_value, best_index)) {
      best_value = candidate.x;
      best_index = bitcast<u32>(candidate.y);
    }
  }
  return vec2<u32>(bitcast<u32>(best_value), best_index);
}

