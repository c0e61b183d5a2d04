#pragma once
// A folder of WGSL files standing in for the build's kernels (ContextOptions::kernel_directory),
// and the files to start from (write_kernel_sources).

#include <string>
#include <vector>

namespace wgpt::gpu {

struct KernelFile {
  std::string name;  // the kernel it replaces: the file's name less ".wgsl"
  std::string source;
};

// The folder's *.wgsl files that differ from the build's kernels of their names, by name (a
// folder that write_kernel_sources filled replaces only what was edited since); other files are
// left alone. Throws wgpt::Error when the folder cannot be read or a file names no kernel of this
// build.
std::vector<KernelFile> read_kernel_directory(const std::string& directory);

}  // namespace wgpt::gpu
