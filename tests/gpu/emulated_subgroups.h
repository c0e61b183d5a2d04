// Kernels that use subgroups (through src/kernels/lib/subgroup_ops.wgsl) run on an adapter without
// them (llvmpipe) with tests/gpu/subgroup_ops_emulated.wgsl in that library's place: workgroup
// memory and barriers, subgroups of 32 lanes laid out as `layout` says. Kernels without subgroup
// operations are left as they are. (Where the adapter has subgroups, the other tests run the
// subgroup kernels for real too.)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "wgpt/gpu.h"

namespace wgpt::test {

// The WGSL's LAYOUT: CONSECUTIVE (lane = local index % 32, as on every GPU seen so far, and as the
// subgroup kernels assume), STRIDED, or MIXED (some blocks of 32 consecutive, some not), which the
// subgroup layout probe must refuse.
enum class EmulatedLayout : uint32_t { consecutive, strided, mixed };

// Embedded kernel `name`'s source with its subgroup operations emulated; nullopt when it has none.
std::optional<std::string> with_emulated_subgroups(std::string_view name, EmulatedLayout layout);

// A context of its own in which every embedded kernel with subgroup operations has them emulated.
std::shared_ptr<gpu::Context> context_with_emulated_subgroups(EmulatedLayout layout);

}  // namespace wgpt::test
