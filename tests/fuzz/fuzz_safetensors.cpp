// libFuzzer target: the safetensors reader on arbitrary bytes. A load must succeed or throw
// wgpt::Error; whatever loads must survive a write and a re-read unchanged.

#include <cstdint>
#include <cstdlib>

#include "index_check.h"
#include "wgpt/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgpt::io;
  if (!index_agrees(std::span<const uint8_t>(data, size))) std::abort();
  std::vector<uint8_t> written;
  try {
    const auto file = load_safetensors(std::span<const uint8_t>(data, size));
    written = safetensors_bytes(file.tensors, file.metadata);
  } catch (const wgpt::Error&) {
    return 0;
  }
  // Writing what was read is a fixed point: narrowing to F16/BF16 already happened in the input.
  const auto reread = load_safetensors(written);
  if (safetensors_bytes(reread.tensors, reread.metadata) != written) std::abort();
  return 0;
}
