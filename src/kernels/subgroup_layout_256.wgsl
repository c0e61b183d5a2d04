// The subgroup layout probe (lib/subgroup_layout.wgsl) for workgroups of 256 threads, as the other
// decode kernels have.
const REDUCE_THREADS: u32 = 256u;
//! include "subgroup_layout.wgsl"
