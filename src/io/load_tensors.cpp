// The public load functions: files are mapped once, then handed to the codec their content names.

#include <cstring>

#include "io/file_bytes.h"
#include "io/formats.h"
#include "io/fzm_layout.h"
#include "io/gguf_layout.h"

namespace wgpt::io {

Format detect_format(std::span<const uint8_t> bytes) {
  const auto starts_with = [&](const char(&magic)[4]) {
    return bytes.size() >= sizeof magic && std::memcmp(bytes.data(), magic, sizeof magic) == 0;
  };
  if (starts_with(fzm::kMagic)) return Format::fzm;
  if (starts_with(gguf::kMagic)) return Format::gguf;
  return Format::safetensors;
}

namespace {

// Every tensor of a GGUF image, under the file's names.
TensorFile gguf_tensors(const GgufFile& file) {
  TensorFile tensors;
  for (const GgufTensorInfo& tensor : file.tensors())
    tensors.tensors.push_back(file.decode(tensor));
  return tensors;
}

TensorFile parse_any(std::span<const uint8_t> bytes, std::string_view source,
                     const std::shared_ptr<const void>& owner) {
  switch (detect_format(bytes)) {
    case Format::fzm:
      return parse_fzm(bytes, source);
    case Format::gguf:
      return gguf_tensors(owner ? parse_gguf(bytes, source, owner) : load_gguf(bytes, source));
    case Format::safetensors:
      break;
  }
  return parse_safetensors(bytes, source, owner);
}

// What gguf_tensors would list, from the header alone (the bytes are not copied or kept).
TensorIndex index_gguf(std::span<const uint8_t> bytes, std::string_view source) {
  const GgufFile file = parse_gguf(bytes, source, nullptr);
  TensorIndex index;
  for (const GgufTensorInfo& tensor : file.tensors())
    index.tensors.push_back({tensor.name, file.decoded_dtype(tensor), tensor.shape});
  return index;
}

}  // namespace

TensorFile load_safetensors(const std::filesystem::path& path) {
  const auto file = FileBytes::open(path);
  return parse_safetensors(file->bytes(), path.string(), file);
}

TensorFile load_safetensors(std::span<const uint8_t> bytes, std::string_view source) {
  return parse_safetensors(bytes, source, nullptr);
}

TensorFile load_fzm(const std::filesystem::path& path) {
  return parse_fzm(FileBytes::open(path)->bytes(), path.string());
}

TensorFile load_fzm(std::span<const uint8_t> bytes, std::string_view source) {
  return parse_fzm(bytes, source);
}

TensorFile load_tensors(const std::filesystem::path& path) {
  const auto file = FileBytes::open(path);
  return parse_any(file->bytes(), path.string(), file);
}

TensorFile load_tensors(std::span<const uint8_t> bytes, std::string_view source) {
  return parse_any(bytes, source, nullptr);
}

TensorIndex read_index(const std::filesystem::path& path) {
  const auto file = FileBytes::open(path);
  return read_index(file->bytes(), path.string());
}

TensorIndex read_index(std::span<const uint8_t> bytes, std::string_view source) {
  switch (detect_format(bytes)) {
    case Format::fzm:
      return index_fzm(bytes, source);
    case Format::gguf:
      return index_gguf(bytes, source);
    case Format::safetensors:
      break;
  }
  return index_safetensors(bytes, source);
}

}  // namespace wgpt::io
