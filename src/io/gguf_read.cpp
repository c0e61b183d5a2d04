// GGUF reader: a bounds-checked walk over the header, the metadata and the tensor descriptions
// (gguf_layout.h). Tensors are decoded on request, so a file whose output head is in a type wgpt
// does not decode (llama.cpp quantizes it to Q6_K) still loads when that tensor is not needed.

#include <algorithm>
#include <bit>
#include <limits>
#include <set>

#include "io/byte_reader.h"
#include "io/element_count.h"
#include "io/element_decode.h"
#include "io/file_bytes.h"
#include "io/formats.h"
#include "io/gguf_blocks.h"
#include "io/gguf_layout.h"

namespace wgpt::io {
namespace {

std::string read_string(ByteReader& reader, const std::string& what) {
  const auto length = reader.read<uint64_t>(what + "'s length");
  const auto bytes = reader.take(length, what);
  return std::string(bytes.begin(), bytes.end());
}

std::string type_name(GgufType type) {
  static const char* const kNames[] = {"u8",   "i8",     "u16",   "i16", "u32", "i32", "f32",
                                       "bool", "string", "array", "u64", "i64", "f64"};
  const auto index = static_cast<uint32_t>(type);
  return index < std::size(kNames) ? kNames[index] : "type " + std::to_string(index);
}

GgufType read_type(ByteReader& reader, const std::string& key) {
  const auto type = reader.read<uint32_t>("the type of '" + key + "'");
  if (type > static_cast<uint32_t>(GgufType::f64)) {
    reader.fail("metadata '" + key + "' has value type " + std::to_string(type) +
                ", which GGUF does not define");
  }
  return static_cast<GgufType>(type);
}

// One element of `type` (not an array) appended to `value`.
void read_element(ByteReader& reader, GgufType type, const std::string& key, GgufValue& value) {
  const std::string what = "the value of '" + key + "'";
  switch (type) {
    case GgufType::u8:
      value.ints.push_back(reader.read<uint8_t>(what));
      return;
    case GgufType::i8:
      value.ints.push_back(reader.read<int8_t>(what));
      return;
    case GgufType::u16:
      value.ints.push_back(reader.read<uint16_t>(what));
      return;
    case GgufType::i16:
      value.ints.push_back(reader.read<int16_t>(what));
      return;
    case GgufType::u32:
      value.ints.push_back(reader.read<uint32_t>(what));
      return;
    case GgufType::i32:
      value.ints.push_back(reader.read<int32_t>(what));
      return;
    case GgufType::i64:
      value.ints.push_back(reader.read<int64_t>(what));
      return;
    case GgufType::u64: {
      const auto number = reader.read<uint64_t>(what);
      if (number > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        reader.fail("metadata '" + key + "' holds " + std::to_string(number) +
                    ", beyond the integers wgpt keeps (2^63 - 1)");
      }
      value.ints.push_back(static_cast<int64_t>(number));
      return;
    }
    case GgufType::boolean: {
      const auto flag = reader.read<uint8_t>(what);
      if (flag > 1) reader.fail("metadata '" + key + "' is a bool holding " + std::to_string(flag));
      value.ints.push_back(flag);
      return;
    }
    case GgufType::f32:
      value.floats.push_back(reader.read<float>(what));
      return;
    case GgufType::f64:
      value.floats.push_back(reader.read<double>(what));
      return;
    case GgufType::string:
      value.strings.push_back(read_string(reader, what));
      return;
    case GgufType::array:
      break;
  }
  reader.fail("metadata '" + key + "' nests an array in an array, which wgpt does not read");
}

GgufValue read_value(ByteReader& reader, const std::string& key) {
  GgufValue value;
  value.type = read_type(reader, key);
  if (value.type != GgufType::array) {
    read_element(reader, value.type, key, value);
    return value;
  }
  value.is_array = true;
  value.type = read_type(reader, key);
  const auto count = reader.read<uint64_t>("the length of '" + key + "'");
  // Every element takes at least a byte: a count beyond the bytes left is a lie, caught before
  // anything is reserved for it.
  if (count > reader.remaining()) {
    reader.fail("metadata '" + key + "' claims " + std::to_string(count) + " elements but only " +
                std::to_string(reader.remaining()) + " bytes remain (truncated file?)");
  }
  for (uint64_t i = 0; i < count; ++i) read_element(reader, value.type, key, value);
  return value;
}

uint64_t alignment_of(const ByteReader& reader, const GgufMetadata& metadata) {
  const auto it = metadata.find("general.alignment");
  if (it == metadata.end()) return gguf::kDefaultAlignment;
  const GgufValue& value = it->second;
  if (value.is_array || value.type != GgufType::u32 || value.ints.front() == 0 ||
      !std::has_single_bit(static_cast<uint64_t>(value.ints.front()))) {
    reader.fail("general.alignment must be a u32 power of two");
  }
  return static_cast<uint64_t>(value.ints.front());
}

uint64_t align_up(uint64_t offset, uint64_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

struct Layout {
  GgufTensorInfo info;
  uint64_t bytes;
};

Layout read_tensor_info(ByteReader& reader, size_t index) {
  const std::string context = "tensor #" + std::to_string(index);
  Layout layout;
  GgufTensorInfo& info = layout.info;
  info.name = read_string(reader, context + "'s name");
  const std::string what = "tensor '" + info.name + "'";
  const auto dims = reader.read<uint32_t>(what + "'s dimension count");
  if (dims > gguf::kMaxDimensions) {
    reader.fail(what + " has " + std::to_string(dims) + " dimensions; GGUF allows at most 4");
  }
  for (uint32_t d = 0; d < dims; ++d) {
    const auto dim = reader.read<uint64_t>(what + "'s dimensions");
    if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      reader.fail(what + ": dimension " + std::to_string(dim) + " is too large");
    }
    info.shape.insert(info.shape.begin(), static_cast<int64_t>(dim));  // innermost first in file
  }
  info.type = reader.read<uint32_t>(what + "'s type");
  info.offset = reader.read<uint64_t>(what + "'s offset");
  const auto type = gguf::type_info(info.type);
  if (!type) {
    reader.fail(what + " has ggml type " + std::to_string(info.type) +
                ", which wgpt does not know");
  }
  const auto numel = element_count(info.shape);
  if (!numel) reader.fail(what + ": shape " + shape_string(info.shape) + " is too large");
  const uint64_t row = info.shape.empty() ? 1 : static_cast<uint64_t>(info.shape.back());
  if (row % type->block_elements != 0) {
    reader.fail(what + ": rows of " + std::to_string(row) + " elements are not whole " +
                std::string(type->name) + " blocks of " + std::to_string(type->block_elements));
  }
  const uint64_t blocks = *numel / type->block_elements;
  if (blocks > std::numeric_limits<uint64_t>::max() / type->block_bytes) {
    reader.fail(what + ": shape " + shape_string(info.shape) + " is too large");
  }
  layout.bytes = blocks * type->block_bytes;
  return layout;
}

// llama.cpp's rule: tensors follow one another in file order, each at the next aligned offset.
void check_placement(const ByteReader& reader, const std::vector<Layout>& layouts,
                     uint64_t alignment, uint64_t data_bytes) {
  uint64_t expected = 0;
  for (const Layout& layout : layouts) {
    if (layout.info.offset != expected) {
      reader.fail("tensor '" + layout.info.name + "' is at data offset " +
                  std::to_string(layout.info.offset) + ", expected " + std::to_string(expected) +
                  " (tensors overlap, leave a gap or are out of order)");
    }
    if (expected > data_bytes || layout.bytes > data_bytes - expected) {
      reader.fail("tensor '" + layout.info.name + "' needs " + std::to_string(layout.bytes) +
                  " bytes at data offset " + std::to_string(expected) + " but the data section " +
                  "holds " + std::to_string(data_bytes) + " (truncated file?)");
    }
    expected = align_up(expected + layout.bytes, alignment);
  }
}

}  // namespace

GgufFile parse_gguf(std::span<const uint8_t> bytes, std::string_view source,
                    std::shared_ptr<const void> owner) {
  ByteReader reader(bytes, source);
  const auto magic = reader.take(sizeof gguf::kMagic, "the magic");
  if (!std::equal(magic.begin(), magic.end(), gguf::kMagic)) reader.fail("not a GGUF file");
  const auto version = reader.read<uint32_t>("the version");
  if (version != 2 && version != 3) {
    reader.fail("GGUF version " + std::to_string(version) + "; wgpt reads versions 2 and 3");
  }
  const auto tensor_count = reader.read<uint64_t>("the tensor count");
  const auto value_count = reader.read<uint64_t>("the metadata count");

  GgufFile file;
  file.source_ = std::string(source);
  for (uint64_t i = 0; i < value_count; ++i) {
    std::string key = read_string(reader, "metadata key #" + std::to_string(i));
    GgufValue value = read_value(reader, key);
    if (!file.metadata_.emplace(key, std::move(value)).second) {
      reader.fail("metadata key '" + key + "' appears twice");
    }
  }
  const uint64_t alignment = alignment_of(reader, file.metadata_);

  std::vector<Layout> layouts;
  std::set<std::string> names;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    Layout layout = read_tensor_info(reader, static_cast<size_t>(i));
    if (!names.insert(layout.info.name).second) {
      reader.fail("tensor '" + layout.info.name + "' appears twice");
    }
    layouts.push_back(std::move(layout));
  }
  const uint64_t data_start = align_up(reader.offset(), alignment);
  if (!layouts.empty() && data_start > bytes.size()) {
    reader.fail("the data section would start at " + std::to_string(data_start) +
                ", past the end of the file (truncated file?)");
  }
  const auto data = bytes.subspan(std::min<uint64_t>(data_start, bytes.size()));
  check_placement(reader, layouts, alignment, data.size());

  for (Layout& layout : layouts) file.tensors_.push_back(std::move(layout.info));
  file.data_ = data;
  file.owner_ = std::move(owner);
  return file;
}

const GgufTensorInfo* GgufFile::find(std::string_view name) const {
  const auto it = std::find_if(tensors_.begin(), tensors_.end(),
                               [&](const GgufTensorInfo& t) { return t.name == name; });
  return it == tensors_.end() ? nullptr : &*it;
}

DType GgufFile::decoded_dtype(const GgufTensorInfo& tensor) const {
  const auto type = gguf::type_info(tensor.type);
  const auto dtype = gguf::decoded_dtype(tensor.type);
  if (!type || !dtype) {
    throw Error(source_ + ": tensor '" + tensor.name + "' is stored as " +
                (type ? std::string(type->name) : "type " + std::to_string(tensor.type)) +
                "; wgpt decodes F32, F16, BF16, Q8_0, Q4_0, I32 and I64");
  }
  return *dtype;
}

TensorData GgufFile::decode(const GgufTensorInfo& tensor) const {
  const DType dtype = decoded_dtype(tensor);
  const auto type = gguf::type_info(tensor.type);
  const uint64_t numel = *element_count(tensor.shape);
  const auto bytes =
      data_.subspan(static_cast<size_t>(tensor.offset),
                    static_cast<size_t>(numel / type->block_elements * type->block_bytes));
  if (dtype == DType::q8_0) {
    return TensorData::from_floats(tensor.name, tensor.shape, gguf::dequantize_q8_0(bytes, numel),
                                   DType::q8_0);
  }
  if (dtype == DType::q4_0) {
    return TensorData::from_floats(tensor.name, tensor.shape, gguf::dequantize_q4_0(bytes, numel),
                                   DType::q4_0);
  }
  if (auto plain = decode_elements(tensor.name, tensor.shape, dtype, bytes, numel, owner_)) {
    return std::move(*plain);
  }
  throw Error(source_ + ": tensor '" + tensor.name + "': no decoder for " +
              std::string(dtype_name(dtype)));
}

const GgufValue& GgufFile::value(const std::string& key) const {
  const auto it = metadata_.find(key);
  if (it == metadata_.end()) throw Error(source_ + " has no metadata '" + key + "'");
  return it->second;
}

int64_t GgufFile::integer(const std::string& key) const {
  const GgufValue& v = value(key);
  if (v.is_array || v.ints.size() != 1 || v.type == GgufType::boolean) {
    throw Error(source_ + ": metadata '" + key + "' is not an integer");
  }
  return v.ints.front();
}

double GgufFile::number(const std::string& key) const {
  const GgufValue& v = value(key);
  if (!v.is_array && v.floats.size() == 1) return v.floats.front();
  return static_cast<double>(integer(key));
}

const std::string& GgufFile::text(const std::string& key) const {
  const GgufValue& v = value(key);
  if (v.is_array || v.type != GgufType::string) {
    throw Error(source_ + ": metadata '" + key + "' is a " + type_name(v.type) +
                (v.is_array ? " array" : "") + ", not a string");
  }
  return v.strings.front();
}

GgufFile load_gguf(const std::filesystem::path& path) {
  auto file = FileBytes::open(path);
  const auto bytes = file->bytes();
  return parse_gguf(bytes, path.string(), std::move(file));
}

GgufFile load_gguf(std::span<const uint8_t> bytes, std::string_view source) {
  // The file views its bytes: keep a copy alive with it.
  auto copy = std::make_shared<const std::vector<uint8_t>>(bytes.begin(), bytes.end());
  const std::span<const uint8_t> owned(*copy);
  return parse_gguf(owned, source, std::move(copy));
}

}  // namespace wgpt::io
