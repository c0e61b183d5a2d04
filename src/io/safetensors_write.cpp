// safetensors writer: the header lists tensors in the order given, with consecutive offsets.

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "io/byte_sink.h"
#include "io/formats.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

using OrderedJson = nlohmann::ordered_json;

// safetensors has no quantized dtypes: their dequantized values are written as F32.
DType stored_dtype(const TensorData& tensor) {
  const DType dtype = tensor.dtype();
  return dtype == DType::q4 || dtype == DType::q8_0 || dtype == DType::q4_0 ? DType::f32 : dtype;
}

size_t stored_bytes(const TensorData& tensor) {
  switch (stored_dtype(tensor)) {
    case DType::f16:
    case DType::bf16:
      return 2 * tensor.numel();
    case DType::i64:
      return 8 * tensor.numel();
    default:
      return 4 * tensor.numel();
  }
}

template <class T>
void write_values(ByteSink& sink, std::span<const T> values) {
  sink.write({reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()});
}

template <class Stored, class Value, class Convert>
void write_converted(ByteSink& sink, std::span<const Value> values, Convert convert) {
  std::vector<Stored> stored(values.size());
  std::transform(values.begin(), values.end(), stored.begin(), convert);
  write_values<Stored>(sink, stored);
}

template <class Narrow>
void write_narrowed_ints(ByteSink& sink, const TensorData& tensor) {
  const auto values = tensor.ints();
  const auto out_of_range = std::find_if(values.begin(), values.end(), [](int64_t v) {
    return v < std::numeric_limits<Narrow>::min() || v > std::numeric_limits<Narrow>::max();
  });
  if (out_of_range != values.end()) {
    throw Error("tensor '" + tensor.name() + "': value " + std::to_string(*out_of_range) +
                " at index " + std::to_string(out_of_range - values.begin()) + " does not fit " +
                std::string(dtype_name(tensor.dtype())));
  }
  write_converted<Narrow>(sink, values, [](int64_t v) { return static_cast<Narrow>(v); });
}

void write_tensor(ByteSink& sink, const TensorData& tensor) {
  switch (stored_dtype(tensor)) {
    case DType::f32:
      return write_values(sink, tensor.floats());
    case DType::f16:
      return write_converted<uint16_t>(sink, tensor.floats(), f32_to_f16);
    case DType::bf16:
      return write_converted<uint16_t>(sink, tensor.floats(), f32_to_bf16);
    case DType::i64:
      return write_values(sink, tensor.ints());
    case DType::i32:
      return write_narrowed_ints<int32_t>(sink, tensor);
    case DType::u32:
      return write_narrowed_ints<uint32_t>(sink, tensor);
    case DType::q4:  // stored as F32
    case DType::q8_0:
    case DType::q4_0:
      break;
  }
}

std::string header_text(std::span<const TensorData> tensors, const Metadata& metadata) {
  OrderedJson header = OrderedJson::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string_view> names;
  uint64_t offset = 0;
  for (const TensorData& tensor : tensors) {
    if (tensor.name().empty() || tensor.name() == "__metadata__") {
      throw Error("cannot write a tensor named '" + tensor.name() + "' to safetensors");
    }
    if (!names.insert(tensor.name()).second) {
      throw Error("two tensors are named '" + tensor.name() + "'");
    }
    const uint64_t end = offset + stored_bytes(tensor);
    header[tensor.name()] = {{"dtype", dtype_name(stored_dtype(tensor))},
                             {"shape", tensor.shape()},
                             {"data_offsets", {offset, end}}};
    offset = end;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("cannot write safetensors header (a name or metadata string is not "
                            "valid UTF-8?): ") +
                e.what());
  }
  // Pad with spaces (as the reference writer does) so the data section starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

}  // namespace

void write_safetensors(ByteSink& sink, std::span<const TensorData> tensors,
                       const Metadata& metadata) {
  const std::string header = header_text(tensors, metadata);
  const uint64_t header_size = header.size();
  sink.write({reinterpret_cast<const uint8_t*>(&header_size), sizeof header_size});
  sink.write({reinterpret_cast<const uint8_t*>(header.data()), header.size()});
  for (const TensorData& tensor : tensors) write_tensor(sink, tensor);
}

void save_safetensors(const std::filesystem::path& path, std::span<const TensorData> tensors,
                      const Metadata& metadata) {
  OutputFile file(path);
  write_safetensors(file, tensors, metadata);
  file.commit();
}

void write_safetensors(OutputFile& file, std::span<const TensorData> tensors,
                       const Metadata& metadata) {
  OutputSink sink(file);
  write_safetensors(sink, tensors, metadata);
}

std::vector<uint8_t> safetensors_bytes(std::span<const TensorData> tensors,
                                       const Metadata& metadata) {
  VectorSink sink;
  write_safetensors(sink, tensors, metadata);
  return sink.take();
}

}  // namespace wgpt::io
