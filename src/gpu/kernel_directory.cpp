#include "gpu/kernel_directory.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

#include "gpu/kernel_sources.h"
#include "wgpt/gpu.h"

namespace wgpt::gpu {
namespace {

constexpr std::string_view kExtension = ".wgsl";

}  // namespace

std::vector<KernelFile> read_kernel_directory(const std::string& directory) {
  std::error_code error;
  std::filesystem::directory_iterator entries(directory, error);
  if (error) {
    throw Error("kernel folder '" + directory + "' (WGPT_KERNEL_DIR): " + error.message());
  }
  std::vector<KernelFile> files;
  for (const std::filesystem::directory_entry& entry : entries) {
    const std::filesystem::path& path = entry.path();
    if (path.extension() != kExtension) continue;
    const std::string name = path.stem().string();
    const KernelSource* embedded = find_embedded_kernel(name);
    if (!embedded) {
      throw Error(
          "kernel folder '" + directory + "' (WGPT_KERNEL_DIR): " + path.filename().string() +
          " names no kernel of this build (`wgpt info --dump-kernels DIR` writes them all)");
    }
    std::ifstream file(path, std::ios::binary);
    std::string source((std::istreambuf_iterator<char>(file)), {});
    // An empty file reads as empty (and fails to compile, named), an unreadable one stops here.
    if (!file.is_open() || file.bad()) {
      throw Error("cannot read the kernel file '" + path.string() + "'");
    }
    if (source != embedded->wgsl) files.push_back({name, std::move(source)});
  }
  std::sort(files.begin(), files.end(),
            [](const KernelFile& a, const KernelFile& b) { return a.name < b.name; });
  return files;
}

size_t write_kernel_sources(const std::filesystem::path& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    throw Error("cannot create the kernel folder '" + directory.string() + "': " + error.message());
  }
  for (const KernelSource& kernel : embedded_kernels()) {
    const std::filesystem::path path =
        directory / (std::string(kernel.name) + std::string(kExtension));
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(kernel.wgsl.data(), static_cast<std::streamsize>(kernel.wgsl.size()));
    file.close();
    if (!file) throw Error("cannot write the kernel file '" + path.string() + "'");
  }
  return embedded_kernels().size();
}

}  // namespace wgpt::gpu
