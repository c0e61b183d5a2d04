// Whether the device lays out the subgroups of a workgroup of REDUCE_THREADS threads (defined by
// the includer, as a reduction's kernel does) the way reduce_subgroup.wgsl assumes. Each thread
// writes 1 where its subgroup's lane 0 is the thread `lane` local indices before it, else 0. With
// subgroups of 32 lanes (the host checks the adapter's sizes), ones from every thread mean that
// each subgroup is 32 consecutive local indices in lane order; ranges of 32 that tile the
// workgroup start at multiples of 32.
//! include "subgroup_ops.wgsl"

@group(0) @binding(1) var<storage, read_write> verdicts: array<u32>;

@compute @workgroup_size(REDUCE_THREADS)
fn main(invocation: Invocation, @builtin(workgroup_id) group: vec3<u32>) {
  let lane = invocation_lane(invocation);
  let first = lanes_first(invocation.local - lane);
  let consecutive = first == invocation.local - lane;
  verdicts[group.x * REDUCE_THREADS + invocation.local] = select(0u, 1u, consecutive);
}
