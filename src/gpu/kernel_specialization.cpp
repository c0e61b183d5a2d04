#include "gpu/kernel_specialization.h"

#include "wgpt/error.h"

namespace wgpt::gpu {
namespace {

constexpr std::string_view kSubgroupMatrixDirective =
    "enable chromium_experimental_subgroup_matrix;";

bool is_directive(std::string_view line) {
  for (std::string_view start : {"enable ", "diagnostic(", "requires "}) {
    if (line.substr(0, start.size()) == start) return true;
  }
  return false;
}

// Where declarations may start: just past the last directive line (WGSL wants every directive
// before the first declaration).
size_t after_directives(std::string_view source) {
  size_t insert_at = 0;
  for (size_t begin = 0; begin < source.size();) {
    size_t end = source.find('\n', begin);
    if (end == std::string_view::npos) end = source.size();
    if (is_directive(source.substr(begin, end - begin))) insert_at = end + 1;
    begin = end + 1;
  }
  return std::min(insert_at, source.size());
}

std::string constant(std::string_view name, uint32_t value) {
  return "const " + std::string(name) + ": u32 = " + std::to_string(value) + "u;\n";
}

}  // namespace

std::string specialize_kernel(std::string_view name, std::string_view source,
                              const Limits& limits) {
  if (source.find(kSubgroupMatrixDirective) == std::string_view::npos) return std::string(source);
  const SubgroupMatrix& matrix = limits.f16_matrix;
  if (!matrix.available()) {
    throw Error("kernel '" + std::string(name) +
                "' needs tensor cores (f16 subgroup matrices), which this device does not offer");
  }
  const size_t at = after_directives(source);
  return std::string(source.substr(0, at)) + constant("SUBGROUP_MATRIX_M", matrix.m) +
         constant("SUBGROUP_MATRIX_N", matrix.n) + constant("SUBGROUP_MATRIX_K", matrix.k) +
         constant("SUBGROUP_SIZE", matrix.subgroup_size) + std::string(source.substr(at));
}

}  // namespace wgpt::gpu
