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

// lib/subgroup_ops.wgsl as the build embeds it, and the emulation that takes its place: read once
// for every kernel they are applied to.
class Emulation {
 public:
  explicit Emulation(EmulatedLayout layout) {
    const std::string root = WGPT_SOURCE_DIR;
    library_ = text_of(root + "/src/kernels/lib/subgroup_ops.wgsl");
    library_.erase(library_.find(kEnable), kEnable.size());
    replacement_ = "const LAYOUT: u32 = " + std::to_string(static_cast<uint32_t>(layout)) + "u;\n" +
                   text_of(root + "/tests/gpu/subgroup_ops_emulated.wgsl");
  }

  // `wgsl` with its subgroup operations emulated; nullopt when it has none.
  std::optional<std::string> apply(std::string_view wgsl) const {
    std::string source(wgsl);
    const size_t at = source.find(library_);
    if (at == std::string::npos) return std::nullopt;
    source.replace(at, library_.size(), replacement_);
    source.erase(source.find(kEnable), kEnable.size());
    return source;
  }

 private:
  std::string library_;
  std::string replacement_;
};

}  // namespace

std::optional<std::string> with_emulated_subgroups(std::string_view name, EmulatedLayout layout) {
  const gpu::KernelSource* kernel = gpu::find_embedded_kernel(name);
  if (!kernel) throw Error("no embedded kernel " + std::string(name));
  return Emulation(layout).apply(kernel->wgsl);
}

std::shared_ptr<gpu::Context> context_with_emulated_subgroups(EmulatedLayout layout) {
  const Emulation emulation(layout);
  auto context = gpu::Context::create();
  size_t replaced = 0;
  for (const gpu::KernelSource& kernel : gpu::embedded_kernels()) {
    if (auto source = emulation.apply(kernel.wgsl)) {
      context->replace_kernel(kernel.name, std::move(*source));
      ++replaced;
    }
  }
  if (replaced == 0) throw Error("no kernel holds lib/subgroup_ops.wgsl as the build embeds it");
  return context;
}

}  // namespace wgpt::test
