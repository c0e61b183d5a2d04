// The public load functions: files are mapped once, then handed to the codec their content names.

#include <cstring>

#include "io/file_bytes.h"
#include "io/formats.h"
#include "io/fzm_layout.h"

namespace wgpt::io {

Format detect_format(std::span<const uint8_t> bytes) {
  const bool fzm = bytes.size() >= sizeof fzm::kMagic &&
                   std::memcmp(bytes.data(), fzm::kMagic, sizeof fzm::kMagic) == 0;
  return fzm ? Format::fzm : Format::safetensors;
}

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
  if (detect_format(file->bytes()) == Format::fzm) return parse_fzm(file->bytes(), path.string());
  return parse_safetensors(file->bytes(), path.string(), file);
}

TensorFile load_tensors(std::span<const uint8_t> bytes, std::string_view source) {
  if (detect_format(bytes) == Format::fzm) return parse_fzm(bytes, source);
  return parse_safetensors(bytes, source, nullptr);
}

TensorIndex read_index(const std::filesystem::path& path) {
  const auto file = FileBytes::open(path);
  return read_index(file->bytes(), path.string());
}

TensorIndex read_index(std::span<const uint8_t> bytes, std::string_view source) {
  if (detect_format(bytes) == Format::fzm) return index_fzm(bytes, source);
  return index_safetensors(bytes, source);
}

}  // namespace wgpt::io
