#include "io/file_bytes.h"

namespace wgpt::io {

std::shared_ptr<const FileBytes> FileBytes::open(const std::filesystem::path& path) {
  return std::shared_ptr<const FileBytes>(new FileBytes(host::map_whole_file(path)));
}

FileBytes::~FileBytes() { host::unmap(mapping_); }

}  // namespace wgpt::io
