#pragma once
// Opening a file for reading only when it is a regular file. A FIFO blocks open() until a writer
// comes and a device may never end, so the type is checked by name before opening, and again on
// the descriptor (the name may have been replaced in between). Every reader of the library goes
// through here: tensor files (FileBytes), config.json, text files.

#include <cstdint>
#include <filesystem>

namespace wgpt::io {

// What a file of mode `mode` is, for messages: "a directory", "a FIFO", "a symbolic link", ...
const char* file_kind(unsigned mode);

struct RegularFile {
  int fd = -1;  // open for reading; the caller closes it (native builds only)
  uint64_t size = 0;
};

// Throws wgpt::Error naming the path and what it is ("a FIFO", "a directory", "no such file")
// when it is not a regular file, or when it is larger than `max_bytes` ("<what> is at most ...").
RegularFile open_regular_file(const std::filesystem::path& path, uint64_t max_bytes,
                              const char* what = "a file");

// Reads `size` bytes of an open file into `out`; throws naming `path` on an error or a short file.
void read_exactly(const RegularFile& file, const std::filesystem::path& path, void* out);

}  // namespace wgpt::io
