// libFuzzer target: the fzm reader on arbitrary bytes. A load must succeed or throw wgpt::Error;
// whatever loads with finite values must re-encode to a file of the same names and shapes.

#include <cstdint>
#include <cstdlib>

#include "index_check.h"
#include "wgpt/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgpt::io;
  if (!index_agrees(std::span<const uint8_t>(data, size))) std::abort();
  TensorFile file;
  std::vector<uint8_t> written;
  try {
    file = load_fzm(std::span<const uint8_t>(data, size));
    written = fzm_bytes(file.tensors);  // throws for non-finite values or too wide a range
  } catch (const wgpt::Error&) {
    return 0;
  }
  const auto reread = load_fzm(written);
  if (reread.tensors.size() != file.tensors.size()) std::abort();
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    if (reread.tensors[i].name() != file.tensors[i].name() ||
        reread.tensors[i].shape() != file.tensors[i].shape()) {
      std::abort();
    }
  }
  return 0;
}
