// The subgroup layout probe (lib/subgroup_layout.wgsl) for workgroups of 64 threads, as the
// decode attention chunks have.
const REDUCE_THREADS: u32 = 64u;
//! include "subgroup_layout.wgsl"
