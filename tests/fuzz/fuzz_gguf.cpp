// libFuzzer target: the GGUF reader on arbitrary bytes. A load must succeed or throw wgpt::Error,
// and so must decoding each tensor; what decodes must survive a write and a re-read: the same
// metadata, names, shapes and types, and writing it again gives the same bytes (the stored types
// round their own values exactly). The header-only index lists what loading gives, or both refuse.

#include <cstdint>
#include <cstdlib>

#include "index_check.h"
#include "wgpt/gguf.h"
#include "wgpt/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgpt::io;
  if (!index_agrees(std::span<const uint8_t>(data, size))) std::abort();
  std::vector<TensorData> tensors;
  GgufMetadata metadata;
  std::vector<uint8_t> written;
  try {
    const GgufFile file = load_gguf(std::span<const uint8_t>(data, size));
    for (const GgufTensorInfo& tensor : file.tensors()) tensors.push_back(file.decode(tensor));
    metadata = file.metadata();
    written = gguf_bytes(metadata, tensors);  // throws for values a quantized type cannot hold
  } catch (const wgpt::Error&) {
    return 0;
  }
  const GgufFile reread = load_gguf(written);
  if (reread.tensors().size() != tensors.size() || reread.metadata().size() != metadata.size()) {
    std::abort();
  }
  std::vector<TensorData> again;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const GgufTensorInfo& info = reread.tensors()[i];
    if (info.name != tensors[i].name() || info.shape != tensors[i].shape()) std::abort();
    again.push_back(reread.decode(info));
    if (again.back().dtype() != tensors[i].dtype()) std::abort();
  }
  if (gguf_bytes(reread.metadata(), again) != written) std::abort();
  return 0;
}
