// Workgroup reductions with subgroup operations: the REDUCE=subgroup form of the reduce_* family
// (see reduce_barrier.wgsl for the contract). Subgroups of SUBGROUP lanes each reduce in registers
// and meet once in workgroup memory, so a reduction costs one or two barriers instead of one per
// halving. The host takes this form only where the adapter's subgroups all have 32 lanes.
// Nothing here assumes how the device groups local indices into subgroups: reduce_begin numbers
// the subgroups with a workgroup atomic and gives each thread `worker` = subgroup number · 32 +
// lane, so threads that reduce together by `worker` share a subgroup.
enable subgroups;

const SUBGROUP: u32 = 32u;
const SUBGROUPS: u32 = REDUCE_THREADS / SUBGROUP;

//! include "best_order.wgsl"

struct Invocation {
  @builtin(local_invocation_index) local: u32,
  @builtin(subgroup_invocation_id) lane: u32,
}

var<private> worker: u32;
var<private> lane: u32;
var<workgroup> reduce_slots: atomic<u32>;
var<workgroup> reduce_scratch: array<vec4<f32>, REDUCE_THREADS>;

fn reduce_begin(invocation: Invocation) {
  lane = invocation.lane;
  var slot = 0u;
  if (subgroupElect()) {
    slot = atomicAdd(&reduce_slots, 1u);
  }
  worker = subgroupBroadcastFirst(slot) * SUBGROUP + lane;
}

// Every subgroup's `value` (from its lane 0) into reduce_scratch[subgroup], then read back whole.
fn reduce_meet(value: f32) {
  workgroupBarrier();
  if (lane == 0u) {
    reduce_scratch[worker / SUBGROUP].x = value;
  }
  workgroupBarrier();
}

fn workgroup_sum(v: f32) -> f32 {
  reduce_meet(subgroupAdd(v));
  var total = 0.0;
  for (var g = 0u; g < SUBGROUPS; g++) {
    total += reduce_scratch[g].x;
  }
  return total;
}

fn workgroup_max(v: f32) -> f32 {
  reduce_meet(subgroupMax(v));
  var largest = reduce_scratch[0].x;
  for (var g = 1u; g < SUBGROUPS; g++) {
    largest = max(largest, reduce_scratch[g].x);
  }
  return largest;
}

// See reduce_barrier.wgsl. tx is at most SUBGROUP: lanes that differ by a multiple of tx share a
// column, so shuffles fold a subgroup onto its first tx lanes.
fn slices_sum(v: vec4<f32>, tx: u32) -> vec4<f32> {
  var s = v;
  for (var offset = SUBGROUP / 2u; offset > 0u; offset /= 2u) {
    let other = subgroupShuffleXor(s, offset);
    if (offset >= tx) {
      s += other;
    }
  }
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

// See reduce_barrier.wgsl; the eight are consecutive lanes of one subgroup.
fn octet_sum(v: f32) -> f32 {
  var s = v;
  for (var offset = 4u; offset > 0u; offset /= 2u) {
    s += subgroupShuffleXor(s, offset);
  }
  return s;
}

// See reduce_barrier.wgsl: the largest value, the lowest index on ties, over valid candidates.
fn workgroup_best(value: f32, index: u32) -> vec2<u32> {
  let valid = index != 0xffffffffu;
  let largest = subgroupMax(select(bitcast<f32>(0xff7fffffu), value, valid));
  let first = subgroupMin(select(0xffffffffu, index, valid && value == largest));
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

