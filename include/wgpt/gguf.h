#pragma once
// wgpt::io, GGUF — llama.cpp's file format: typed metadata and tensors in one file, read and
// written with the same checks as the other formats (include/wgpt/io.h).
//
//   auto file = wgpt::io::load_gguf("gpt2.Q8_0.gguf");
//   std::string arch = file.text("general.architecture");             // "gpt2"
//   wgpt::io::TensorData wte = file.decode(*file.find("token_embd.weight"));
//
// A GGUF file: "GGUF", version 2 or 3, typed metadata (key → value), then tensor descriptions and
// the aligned data. ggml lists a tensor's dimensions innermost first; here shapes are row-major,
// outermost first, as everywhere in wgpt (ggml's [768, 2304] is [2304, 768] here). Reading checks
// every count, length, offset and size against the bytes present before anything is read or
// allocated. include/wgpt/model_files.h maps GPT-2's tensors and metadata to a model.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/io.h"

namespace wgpt::io {

// GGUF's metadata value types, by their numbers in the file.
enum class GgufType : uint32_t {
  u8 = 0,
  i8 = 1,
  u16 = 2,
  i16 = 3,
  u32 = 4,
  i32 = 5,
  f32 = 6,
  boolean = 7,
  string = 8,
  array = 9,
  u64 = 10,
  i64 = 11,
  f64 = 12,
};

// One metadata value: a scalar or an array (of scalars or strings; GGUF's nested arrays are
// refused). Integer and boolean elements are in `ints`, f32/f64 in `floats`, strings in
// `strings`; a scalar has exactly one element there.
struct GgufValue {
  GgufType type = GgufType::u32;  // the scalar's type, or an array's element type
  bool is_array = false;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<std::string> strings;

  static GgufValue string(std::string text);
  static GgufValue u32(uint32_t value);
  static GgufValue f32(float value);
  static GgufValue string_array(std::vector<std::string> values);
  static GgufValue i32_array(std::vector<int64_t> values);
};
using GgufMetadata = std::map<std::string, GgufValue>;

// A tensor as the file describes it.
struct GgufTensorInfo {
  std::string name;
  Shape shape;          // row-major: ggml's dimensions reversed
  uint32_t type = 0;    // ggml's type number: 0 F32, 1 F16, 2 Q4_0, 8 Q8_0, 30 BF16, …
  uint64_t offset = 0;  // from the start of the data section
};

class GgufFile {
 public:
  const GgufMetadata& metadata() const { return metadata_; }
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  // The tensor called `name`, or nullptr.
  const GgufTensorInfo* find(std::string_view name) const;
  // Its values as f32, its dtype() what the file stores (f32, f16, bf16, q8_0 or q4_0); any other
  // ggml type (Q6_K, …) is an error naming the tensor and the type.
  TensorData decode(const GgufTensorInfo& tensor) const;
  // The dtype decode() gives the tensor, without reading its data; the same error for a type it
  // cannot decode.
  DType decoded_dtype(const GgufTensorInfo& tensor) const;
  // Metadata by key, with errors naming the file and the key when absent or of another kind.
  const GgufValue& value(const std::string& key) const;
  int64_t integer(const std::string& key) const;          // an integer scalar
  double number(const std::string& key) const;            // an integer or float scalar
  const std::string& text(const std::string& key) const;  // a string scalar
  const std::string& source() const { return source_; }

 private:
  friend GgufFile parse_gguf(std::span<const uint8_t>, std::string_view,
                             std::shared_ptr<const void>);
  GgufMetadata metadata_;
  std::vector<GgufTensorInfo> tensors_;
  std::span<const uint8_t> data_;      // the data section
  std::shared_ptr<const void> owner_;  // keeps data_ alive
  std::string source_;
};

GgufFile load_gguf(const std::filesystem::path& path);
GgufFile load_gguf(std::span<const uint8_t> bytes, std::string_view source = "<bytes>");

// Writes a GGUF version 3 file: `metadata` (general.alignment, when given, sets the alignment;
// 32 otherwise) and the tensors in the order given, each stored as its dtype(): f32, f16, bf16,
// q8_0 or q4_0 (the quantized ones need a last dimension that is a multiple of 32), i32 or i64;
// q4 (.fzm) tensors are stored as f32.
void save_gguf(const std::filesystem::path& path, const GgufMetadata& metadata,
               std::span<const TensorData> tensors);
std::vector<uint8_t> gguf_bytes(const GgufMetadata& metadata, std::span<const TensorData> tensors);

}  // namespace wgpt::io
