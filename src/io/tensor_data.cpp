// TensorData and TensorFile: the in-memory form every reader produces and every writer consumes.

#include "io/element_count.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

void check_shape(const std::string& name, const Shape& shape, size_t value_count) {
  const auto count = element_count(shape);
  if (!count || *count != value_count) {
    throw Error("tensor '" + name + "': shape " + shape_string(shape) + " does not hold " +
                std::to_string(value_count) + " values");
  }
}

}  // namespace

std::string_view dtype_name(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "F32";
    case DType::f16:
      return "F16";
    case DType::bf16:
      return "BF16";
    case DType::i64:
      return "I64";
    case DType::i32:
      return "I32";
    case DType::u32:
      return "U32";
    case DType::q4:
      return "Q4";
    case DType::q8_0:
      return "Q8_0";
    case DType::q4_0:
      return "Q4_0";
  }
  return "?";
}

bool is_integer(DType dtype) {
  return dtype == DType::i64 || dtype == DType::i32 || dtype == DType::u32;
}

TensorData::TensorData(std::string name, Shape shape, DType dtype)
    : name_(std::move(name)), shape_(std::move(shape)), dtype_(dtype) {}

TensorData TensorData::from_floats(std::string name, Shape shape, std::vector<float> values,
                                   DType dtype) {
  if (io::is_integer(dtype)) {
    throw Error("tensor '" + name + "': float values cannot be stored as " +
                std::string(dtype_name(dtype)));
  }
  check_shape(name, shape, values.size());
  TensorData tensor(std::move(name), std::move(shape), dtype);
  // Shared storage keeps the span valid however often the tensor is copied or moved.
  auto storage = std::make_shared<const std::vector<float>>(std::move(values));
  tensor.floats_ = *storage;
  tensor.float_owner_ = std::move(storage);
  return tensor;
}

TensorData TensorData::with_q4(Q4Data q4) const {
  TensorData tensor = *this;
  tensor.q4_ = std::make_shared<const Q4Data>(std::move(q4));
  return tensor;
}

TensorData TensorData::from_ints(std::string name, Shape shape, std::vector<int64_t> values,
                                 DType dtype) {
  if (!io::is_integer(dtype)) {
    throw Error("tensor '" + name + "': integer values cannot be stored as " +
                std::string(dtype_name(dtype)));
  }
  check_shape(name, shape, values.size());
  TensorData tensor(std::move(name), std::move(shape), dtype);
  tensor.ints_ = std::move(values);
  return tensor;
}

TensorData TensorData::view_floats(std::string name, Shape shape, std::span<const float> values,
                                   std::shared_ptr<const void> owner) {
  check_shape(name, shape, values.size());
  TensorData tensor(std::move(name), std::move(shape), DType::f32);
  tensor.floats_ = values;
  tensor.float_owner_ = std::move(owner);
  tensor.is_view_ = true;
  return tensor;
}

size_t TensorData::numel() const { return is_integer() ? ints_.size() : floats_.size(); }

std::span<const float> TensorData::floats() const {
  if (is_integer()) {
    throw Error("tensor '" + name_ + "' holds " + std::string(dtype_name(dtype_)) +
                " integers, not floats: read it with ints()");
  }
  return floats_;
}

std::span<const int64_t> TensorData::ints() const {
  if (!is_integer()) {
    throw Error("tensor '" + name_ + "' holds " + std::string(dtype_name(dtype_)) +
                " floats, not integers: read it with floats()");
  }
  return ints_;
}

const TensorData* TensorFile::find(std::string_view name) const {
  for (const auto& tensor : tensors) {
    if (tensor.name() == name) return &tensor;
  }
  return nullptr;
}

const TensorData& TensorFile::at(std::string_view name) const {
  if (const auto* tensor = find(name)) return *tensor;
  throw Error("no tensor named '" + std::string(name) + "' (the file holds " +
              std::to_string(tensors.size()) + " tensors)");
}

TensorIndex TensorFile::index() const {
  TensorIndex index{{}, metadata};
  for (const TensorData& tensor : tensors) {
    index.tensors.push_back({tensor.name(), tensor.dtype(), tensor.shape()});
  }
  return index;
}

const TensorInfo* TensorIndex::find(std::string_view name) const {
  for (const TensorInfo& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

TensorData TensorData::stored_as(DType dtype) const {
  if (io::is_integer(dtype) != is_integer()) {
    throw Error("tensor '" + name_ + "': " + (is_integer() ? "integer" : "float") +
                " values cannot be stored as " + std::string(dtype_name(dtype)));
  }
  TensorData copy = *this;
  copy.dtype_ = dtype;
  return copy;
}

}  // namespace wgpt::io
