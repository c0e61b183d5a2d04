#include "emulated_subgroups.h"

#include <fstream>
#include <iterator>

#include "gpu/kernel_sources.h"
#include "wgpt/error.h"

namespace wgpt::test {
namespace {

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The build moves a library's `enable` lines to the kernel's top.
constexpr std::string_view kEnable = "\nenable subgroups;";

std::optional<std::string> emulated(std::string_view wgsl, EmulatedLayout layout) {
  const std::string root = WGPT_SOURCE_DIR;
  std::string library = text_of(root + "/src/kernels/lib/subgroup_ops.wgsl");
  library.erase(library.find(kEnable), kEnable.size());
  std::string source(wgsl);
  const size_t at = source.find(library);
  if (at == std::string::npos) return std::nullopt;
  source.replace(at, library.size(),
                 "const LAYOUT: u32 = " + std::to_string(static_cast<uint32_t>(layout)) + "u;\n" +
                     text_of(root + "/tests/gpu/subgroup_ops_emulated.wgsl"));
  source.erase(source.find(kEnable), kEnable.size());
  return source;
}

}  // namespace

std::optional<std::string> with_emulated_subgroups(std::string_view name, EmulatedLayout layout) {
  const gpu::KernelSource* kernel = gpu::find_embedded_kernel(name);
  if (!kernel) throw Error("no embedded kernel " + std::string(name));
  return emulated(kernel->wgsl, layout);
}

std::shared_ptr<gpu::Context> context_with_emulated_subgroups(EmulatedLayout layout) {
  auto context = gpu::Context::create();
  size_t replaced = 0;
  for (const gpu::KernelSource& kernel : gpu::embedded_kernels()) {
    if (auto source = emulated(kernel.wgsl, layout)) {
      context->replace_kernel(kernel.name, std::move(*source));
      ++replaced;
    }
  }
  if (replaced == 0) throw Error("no kernel holds lib/subgroup_ops.wgsl as the build embeds it");
  return context;
}

}  // namespace wgpt::test
