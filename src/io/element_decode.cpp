#include "io/element_decode.h"

#include <cstring>
#include <vector>

namespace wgpt::io {
namespace {

template <class Stored, class Convert>
auto convert_elements(std::span<const uint8_t> bytes, Convert convert) {
  using Value = decltype(convert(Stored{}));
  std::vector<Value> values(bytes.size() / sizeof(Stored));
  for (size_t i = 0; i < values.size(); ++i) {
    Stored stored;
    std::memcpy(&stored, bytes.data() + i * sizeof(Stored), sizeof(Stored));
    values[i] = convert(stored);
  }
  return values;
}

}  // namespace

std::optional<TensorData> decode_elements(const std::string& name, const Shape& shape, DType dtype,
                                          std::span<const uint8_t> bytes, uint64_t numel,
                                          const std::shared_ptr<const void>& owner) {
  const auto widen = [](auto x) { return static_cast<int64_t>(x); };
  switch (dtype) {
    case DType::f32:
      if (owner && reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) == 0) {
        const std::span<const float> view(reinterpret_cast<const float*>(bytes.data()),
                                          static_cast<size_t>(numel));
        return TensorData::view_floats(name, shape, view, owner);
      }
      return TensorData::from_floats(name, shape,
                                     convert_elements<float>(bytes, [](float x) { return x; }));
    case DType::f16:
      return TensorData::from_floats(name, shape, convert_elements<uint16_t>(bytes, f16_to_f32),
                                     DType::f16);
    case DType::bf16:
      return TensorData::from_floats(name, shape, convert_elements<uint16_t>(bytes, bf16_to_f32),
                                     DType::bf16);
    case DType::i64:
      return TensorData::from_ints(name, shape, convert_elements<int64_t>(bytes, widen));
    case DType::i32:
      return TensorData::from_ints(name, shape, convert_elements<int32_t>(bytes, widen),
                                   DType::i32);
    case DType::u32:
      return TensorData::from_ints(name, shape, convert_elements<uint32_t>(bytes, widen),
                                   DType::u32);
    default:
      return std::nullopt;
  }
}

}  // namespace wgpt::io
