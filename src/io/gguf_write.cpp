// GGUF writer: version 3, metadata in key order, tensors in the order given, each at the next
// aligned offset (the layout llama.cpp reads).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "io/byte_sink.h"
#include "io/element_count.h"
#include "io/formats.h"
#include "io/gguf_blocks.h"
#include "io/gguf_layout.h"

namespace wgpt::io {
namespace {

class Writer {
 public:
  explicit Writer(ByteSink& sink) : sink_(sink) {}

  template <class T>
  void put(T value) {
    bytes({reinterpret_cast<const uint8_t*>(&value), sizeof value});
  }
  void string(const std::string& text) {
    put<uint64_t>(text.size());
    bytes({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
  }
  void bytes(std::span<const uint8_t> data) {
    sink_.write(data);
    written_ += data.size();
  }
  void pad_to(uint64_t alignment) {
    const std::vector<uint8_t> zeros((alignment - written_ % alignment) % alignment, 0);
    bytes(zeros);
  }

 private:
  ByteSink& sink_;
  uint64_t written_ = 0;
};

void write_element(Writer& out, GgufType type, const GgufValue& value, size_t i) {
  switch (type) {
    case GgufType::u8:
    case GgufType::boolean:
      return out.put(static_cast<uint8_t>(value.ints[i]));
    case GgufType::i8:
      return out.put(static_cast<int8_t>(value.ints[i]));
    case GgufType::u16:
      return out.put(static_cast<uint16_t>(value.ints[i]));
    case GgufType::i16:
      return out.put(static_cast<int16_t>(value.ints[i]));
    case GgufType::u32:
      return out.put(static_cast<uint32_t>(value.ints[i]));
    case GgufType::i32:
      return out.put(static_cast<int32_t>(value.ints[i]));
    case GgufType::u64:
      return out.put(static_cast<uint64_t>(value.ints[i]));
    case GgufType::i64:
      return out.put(value.ints[i]);
    case GgufType::f32:
      return out.put(static_cast<float>(value.floats[i]));
    case GgufType::f64:
      return out.put(value.floats[i]);
    case GgufType::string:
      return out.string(value.strings[i]);
    case GgufType::array:
      break;
  }
  throw Error("GGUF metadata: an array's elements cannot be arrays");
}

size_t element_count_of(const GgufValue& value) {
  switch (value.type) {
    case GgufType::string:
      return value.strings.size();
    case GgufType::f32:
    case GgufType::f64:
      return value.floats.size();
    default:
      return value.ints.size();
  }
}

void write_value(Writer& out, const std::string& key, const GgufValue& value) {
  const size_t count = element_count_of(value);
  if (!value.is_array && count != 1) {
    throw Error("GGUF metadata '" + key + "' is a scalar holding " + std::to_string(count) +
                " values");
  }
  out.string(key);
  if (value.is_array) {
    out.put(static_cast<uint32_t>(GgufType::array));
    out.put(static_cast<uint32_t>(value.type));
    out.put<uint64_t>(count);
  } else {
    out.put(static_cast<uint32_t>(value.type));
  }
  for (size_t i = 0; i < count; ++i) write_element(out, value.type, value, i);
}

// A tensor's bytes as its dtype stores them.
std::vector<uint8_t> encode(const TensorData& tensor) {
  std::vector<uint8_t> out;
  const auto append = [&](const auto& value) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    out.insert(out.end(), bytes, bytes + sizeof value);
  };
  switch (tensor.dtype()) {
    case DType::i64:
      for (const int64_t v : tensor.ints()) append(v);
      return out;
    case DType::i32:
      for (const int64_t v : tensor.ints()) {
        if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
          throw Error("tensor '" + tensor.name() + "': " + std::to_string(v) + " does not fit I32");
        }
        append(static_cast<int32_t>(v));
      }
      return out;
    case DType::f16:
      for (const float v : tensor.floats()) append(f32_to_f16(v));
      return out;
    case DType::bf16:
      for (const float v : tensor.floats()) append(f32_to_bf16(v));
      return out;
    case DType::q8_0:
    case DType::q4_0: {
      const auto values = tensor.floats();
      if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
        throw Error("tensor '" + tensor.name() + "' holds a value that is not finite, which " +
                    std::string(dtype_name(tensor.dtype())) + " cannot store");
      }
      (tensor.dtype() == DType::q8_0 ? gguf::quantize_q8_0 : gguf::quantize_q4_0)(values, out);
      return out;
    }
    case DType::f32:
    case DType::q4:
    case DType::u32:  // refused by stored_size
      break;
  }
  const auto values = tensor.floats();
  out.resize(values.size_bytes());
  // An empty tensor leaves both buffers empty, whose data() may be null: memcpy may not take that.
  if (!values.empty()) std::memcpy(out.data(), values.data(), values.size_bytes());
  return out;
}

// The bytes `encode` will give, checking first that the dtype can store the tensor's shape.
uint64_t stored_size(const TensorData& tensor) {
  if (tensor.dtype() == DType::u32) {
    throw Error("tensor '" + tensor.name() + "': GGUF has no U32 tensors");
  }
  const auto type = *gguf::type_info(gguf::stored_type(tensor.dtype()));
  const uint64_t row = tensor.shape().empty() ? 1 : static_cast<uint64_t>(tensor.shape().back());
  if (row % type.block_elements != 0) {
    throw Error("tensor '" + tensor.name() + "': rows of " + std::to_string(row) +
                " elements cannot be stored as " + std::string(type.name) + " (blocks of " +
                std::to_string(type.block_elements) + ")");
  }
  return tensor.numel() / type.block_elements * type.block_bytes;
}

void check_tensors(std::span<const TensorData> tensors) {
  std::set<std::string> names;
  for (const TensorData& tensor : tensors) {
    if (tensor.name().empty()) throw Error("a GGUF tensor needs a name");
    if (!names.insert(tensor.name()).second) {
      throw Error("tensor '" + tensor.name() + "' is given twice");
    }
    if (tensor.shape().size() > gguf::kMaxDimensions) {
      throw Error("tensor '" + tensor.name() + "' has " + std::to_string(tensor.shape().size()) +
                  " dimensions; GGUF allows at most 4");
    }
  }
}

uint64_t alignment_of(const GgufMetadata& metadata) {
  const auto it = metadata.find("general.alignment");
  if (it == metadata.end()) return gguf::kDefaultAlignment;
  if (it->second.is_array || it->second.type != GgufType::u32 || it->second.ints.size() != 1 ||
      it->second.ints.front() <= 0 ||
      !std::has_single_bit(static_cast<uint64_t>(it->second.ints.front()))) {
    throw Error("GGUF metadata general.alignment must be a u32 power of two");
  }
  return static_cast<uint64_t>(it->second.ints.front());
}

}  // namespace

GgufValue GgufValue::string(std::string text) {
  GgufValue value;
  value.type = GgufType::string;
  value.strings.push_back(std::move(text));
  return value;
}

GgufValue GgufValue::u32(uint32_t number) {
  GgufValue value;
  value.type = GgufType::u32;
  value.ints.push_back(number);
  return value;
}

GgufValue GgufValue::f32(float number) {
  GgufValue value;
  value.type = GgufType::f32;
  value.floats.push_back(number);
  return value;
}

GgufValue GgufValue::string_array(std::vector<std::string> texts) {
  GgufValue value;
  value.type = GgufType::string;
  value.is_array = true;
  value.strings = std::move(texts);
  return value;
}

GgufValue GgufValue::i32_array(std::vector<int64_t> numbers) {
  GgufValue value;
  value.type = GgufType::i32;
  value.is_array = true;
  value.ints = std::move(numbers);
  return value;
}

void write_gguf(ByteSink& sink, const GgufMetadata& metadata, std::span<const TensorData> tensors) {
  check_tensors(tensors);
  const uint64_t alignment = alignment_of(metadata);
  std::vector<uint64_t> sizes;
  for (const TensorData& tensor : tensors) sizes.push_back(stored_size(tensor));

  Writer out(sink);
  out.bytes({reinterpret_cast<const uint8_t*>(gguf::kMagic), sizeof gguf::kMagic});
  out.put(gguf::kVersion);
  out.put<uint64_t>(tensors.size());
  out.put<uint64_t>(metadata.size());
  for (const auto& [key, value] : metadata) write_value(out, key, value);
  uint64_t offset = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const TensorData& tensor = tensors[i];
    out.string(tensor.name());
    out.put(static_cast<uint32_t>(tensor.shape().size()));
    for (auto dim = tensor.shape().rbegin(); dim != tensor.shape().rend(); ++dim) {
      out.put(static_cast<uint64_t>(*dim));  // innermost first
    }
    out.put(gguf::stored_type(tensor.dtype()));
    out.put(offset);
    offset = (offset + sizes[i] + alignment - 1) / alignment * alignment;
  }
  out.pad_to(alignment);
  // One tensor encoded at a time, so a large model never needs a second copy of itself.
  for (const TensorData& tensor : tensors) {
    out.bytes(encode(tensor));
    out.pad_to(alignment);
  }
}

void save_gguf(const std::filesystem::path& path, const GgufMetadata& metadata,
               std::span<const TensorData> tensors) {
  OutputFile file(path);
  OutputSink sink(file);
  write_gguf(sink, metadata, tensors);
  file.commit();
}

std::vector<uint8_t> gguf_bytes(const GgufMetadata& metadata, std::span<const TensorData> tensors) {
  VectorSink sink;
  write_gguf(sink, metadata, tensors);
  return sink.take();
}

}  // namespace wgpt::io
