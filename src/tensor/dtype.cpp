// What each dtype is called, how much storage its elements take, and which take column strips.
#include <string>

#include "wgpt/tensor.h"

namespace wgpt {

const char* to_string(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "f32";
    case DType::u32:
      return "u32";
    case DType::f16:
      return "f16";
    case DType::bf16:
      return "bf16";
    case DType::q4:
      return "q4";
  }
  return "?";
}

DType parse_weight_dtype(std::string_view name) {
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::q4}) {
    if (name == to_string(dtype)) return dtype;
  }
  throw Error("unknown weight dtype '" + std::string(name) + "' (expected f32, f16, bf16 or q4)");
}

bool is_packed(DType dtype) {
  return dtype == DType::f16 || dtype == DType::bf16 || dtype == DType::q4;
}

size_t storage_bytes(DType dtype, size_t count) {
  switch (dtype) {
    case DType::f16:
    case DType::bf16:
      return (count + 1) / 2 * 4;
    case DType::q4:
      return (count + kQ4Block - 1) / kQ4Block * kQ4BlockWords * 4;
    default:
      return count * 4;
  }
}

size_t gpu_read_bytes(DType dtype, size_t bytes) {
  return dtype == DType::q4 ? (bytes + 15) / 16 * 16 : bytes;
}

bool fits_column_strips(DType dtype, const Shape& shape) {
  const size_t multiple = dtype == DType::q4 ? kQ4Block : kStripColumns;
  return dtype != DType::u32 && shape.size() == 2 && shape[1] % multiple == 0;
}

}  // namespace wgpt
