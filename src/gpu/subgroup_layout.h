#pragma once
// Whether a device's subgroups are laid out as the subgroup reductions assume
// (lib/reduce_subgroup.wgsl): in workgroups of 64 and of 256 threads, every subgroup the 32
// consecutive local indices from a multiple of 32, in lane order. WebGPU does not promise it;
// every GPU we have seen does it. A context finds out once, when first asked
// (Context::subgroups_consecutive), so that no kernel checks it at run time.

#include "wgpt/gpu.h"

namespace wgpt::gpu {

// Whether the device has subgroups of exactly 32 lanes, which the reductions and the probe need.
bool has_32_lane_subgroups(const Limits& limits);

// Runs the probe kernels (src/kernels/subgroup_layout_*.wgsl) over many workgroups: true when
// every thread of every one found its subgroup laid out so. One submit and one wait; native only.
bool probe_consecutive_subgroups(Context& context);

}  // namespace wgpt::gpu
