// `wgpt info`: which adapter wgpt would use, the limits that matter, and a checked self-test.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "joined.h"
#include "wgpt/gpu.h"
#include "wgpt/ops.h"

namespace wgpt::cli {
namespace {

struct InfoOptions {
  std::string adapter;
  std::string dump_kernels;
};

// Doubles 1000 numbers and adds an offset on the GPU; true when every result is right.
bool self_test(gpu::Context& context) {
  constexpr uint32_t kCount = 1000;
  constexpr float kOffset = 0.5f;
  std::vector<float> input(kCount);
  for (uint32_t i = 0; i < kCount; ++i) input[i] = static_cast<float>(i) * 0.25f;
  gpu::Buffer in = context.upload(std::as_bytes(std::span(input)));
  gpu::Buffer out = context.create_storage(kCount * sizeof(float));
  uint32_t offset_bits;
  std::memcpy(&offset_bits, &kOffset, sizeof offset_bits);
  const uint32_t params[] = {kCount, offset_bits};
  context.dispatch("self_test", params, {in, out}, {(kCount + 63) / 64});
  std::vector<std::byte> bytes = context.readback(out, 0, kCount * sizeof(float));
  std::vector<float> result(kCount);
  std::memcpy(result.data(), bytes.data(), bytes.size());
  for (uint32_t i = 0; i < kCount; ++i) {
    if (result[i] != input[i] * 2.0f + kOffset) return false;
  }
  return true;
}

std::string mib(uint64_t bytes) { return std::to_string(bytes / (1024 * 1024)) + " MiB"; }

void run_info(const InfoOptions& options) {
  if (!options.dump_kernels.empty()) {
    const size_t written = gpu::write_kernel_sources(options.dump_kernels);
    std::printf(
        "wrote %zu kernels to %s: with WGPT_KERNEL_DIR=%s, those edited there replace "
        "the built-in ones\n",
        written, options.dump_kernels.c_str(), options.dump_kernels.c_str());
    return;
  }
  gpu::ContextOptions context_options;
  if (!options.adapter.empty()) context_options.backend = gpu::parse_backend(options.adapter);
  auto context = gpu::Context::create(context_options);
  const gpu::AdapterInfo& info = context->adapter_info();
  const gpu::Limits& limits = context->limits();
  std::printf("adapter:      %s\n", info.device.empty() ? "(unnamed)" : info.device.c_str());
  std::printf("description:  %s\n", info.description.c_str());
  std::printf("vendor:       %s (0x%04x), device 0x%04x%s\n",
              info.vendor.empty() ? "-" : info.vendor.c_str(), info.vendor_id, info.device_id,
              info.architecture.empty() ? "" : (", " + info.architecture).c_str());
  std::printf("backend:      %s\n", info.backend.c_str());
  std::printf("kind:         %s\n", info.is_cpu ? "CPU (software rasteriser)" : "GPU");
  std::printf("limits:       storage binding %s, buffer %s, %u storage buffers/stage,\n",
              mib(limits.max_storage_buffer_binding_size).c_str(),
              mib(limits.max_buffer_size).c_str(), limits.max_storage_buffers_per_stage);
  std::printf("              %u invocations/workgroup, %u B workgroup memory, %u workgroups/dim\n",
              limits.max_invocations_per_workgroup, limits.max_workgroup_storage_bytes,
              limits.max_workgroups_per_dimension);
  std::printf("features:     shader-f16 %s, timestamp-query %s\n", limits.shader_f16 ? "yes" : "no",
              limits.timestamp_query ? "yes" : "no");
  if (limits.subgroups) {
    std::printf(
        "subgroups:    %u to %u lanes%s\n", limits.subgroup_min_size, limits.subgroup_max_size,
        context->subgroups_consecutive() ? ", laid out consecutively (subgroup reductions)" : "");
  } else {
    std::printf("subgroups:    no\n");
  }
  const gpu::SubgroupMatrix& matrix = limits.f16_matrix;
  if (matrix.available()) {
    std::printf(
        "tensor cores: f16 × f16 → f32 subgroup matrices of %u × %u × %u, subgroups of %u "
        "(--precision mixed uses them)\n",
        matrix.m, matrix.n, matrix.k, matrix.subgroup_size);
  } else {
    std::printf("tensor cores: none usable (--precision mixed runs the f32 kernels)\n");
  }
  std::printf("checks:       %s\n",
              limits.kernel_checks
                  ? "on (bounds clamped, workgroup memory zeroed; WGPT_KERNEL_CHECKS=0 drops them)"
                  : "off (WGPT_KERNEL_CHECKS=0: no bounds clamped, workgroup memory not zeroed)");
  try {
    std::printf("attention:    %s for prompts (WGPT_PROMPT_ATTENTION=auto|plain|pairs|quarters)\n",
                std::string(ops::causal_attention_kernel(*context)).c_str());
  } catch (const Error& error) {
    std::printf("attention:    none: %s\n", error.what());  // the form asked for cannot run here
  }
  const std::vector<std::string>& replaced = context->replaced_kernels();
  if (!context_options.kernel_directory.empty()) {
    const std::string names = joined(replaced, ", ");
    std::printf("kernels:      %zu replaced from %s%s%s\n", replaced.size(),
                context_options.kernel_directory.c_str(), names.empty() ? "" : ": ", names.c_str());
  }
  const bool passed = self_test(*context);
  std::printf("self-test:    %s\n", passed ? "passed" : "FAILED (wrong results)");
  if (!passed) throw Error("the self-test kernel computed wrong results on this adapter");
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* command = app.add_subcommand(
      "info", "Show the WebGPU adapter wgpt uses, its limits, and run a checked self-test");
  command->add_option("--adapter", options->adapter,
                      "The WebGPU backend: auto, vulkan, metal, d3d12 or gl (default: "
                      "$WGPT_BACKEND, else auto)");
  command
      ->add_option("--dump-kernels", options->dump_kernels,
                   "Write this build's kernels (includes expanded) to the folder DIR as "
                   "NAME.wgsl and stop: with WGPT_KERNEL_DIR=DIR every command runs the files "
                   "there instead of the built-in kernels of the same names")
      ->type_name("DIR");
  command->callback([options] { run_info(*options); });
}

}  // namespace wgpt::cli
