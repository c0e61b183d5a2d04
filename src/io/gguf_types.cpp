// ggml's tensor types: the table every GGUF tensor is sized by, and the ones wgpt decodes.

#include "io/gguf_blocks.h"
#include "io/gguf_layout.h"

namespace wgpt::io::gguf {

std::optional<TypeInfo> type_info(uint32_t type) {
  // Sizes from ggml's type traits: blocks of 1 (plain numbers), 32 (Q*_0, Q*_1, IQ4_NL) or 256
  // (k-quants) elements. Numbers ggml retired, and the i-quants, are not listed.
  switch (type) {
    case kF32:
      return TypeInfo{"F32", 1, 4};
    case kF16:
      return TypeInfo{"F16", 1, 2};
    case kQ4_0:
      return TypeInfo{"Q4_0", kBlockElements, kQ4_0BlockBytes};
    case 3:
      return TypeInfo{"Q4_1", 32, 20};
    case 6:
      return TypeInfo{"Q5_0", 32, 22};
    case 7:
      return TypeInfo{"Q5_1", 32, 24};
    case kQ8_0:
      return TypeInfo{"Q8_0", kBlockElements, kQ8_0BlockBytes};
    case 9:
      return TypeInfo{"Q8_1", 32, 36};
    case 10:
      return TypeInfo{"Q2_K", 256, 84};
    case 11:
      return TypeInfo{"Q3_K", 256, 110};
    case 12:
      return TypeInfo{"Q4_K", 256, 144};
    case 13:
      return TypeInfo{"Q5_K", 256, 176};
    case 14:
      return TypeInfo{"Q6_K", 256, 210};
    case 15:
      return TypeInfo{"Q8_K", 256, 292};
    case 20:
      return TypeInfo{"IQ4_NL", 32, 18};
    case 24:
      return TypeInfo{"I8", 1, 1};
    case 25:
      return TypeInfo{"I16", 1, 2};
    case kI32:
      return TypeInfo{"I32", 1, 4};
    case kI64:
      return TypeInfo{"I64", 1, 8};
    case 28:
      return TypeInfo{"F64", 1, 8};
    case kBF16:
      return TypeInfo{"BF16", 1, 2};
    default:
      return std::nullopt;
  }
}

uint32_t stored_type(DType dtype) {
  switch (dtype) {
    case DType::f16:
      return kF16;
    case DType::bf16:
      return kBF16;
    case DType::q8_0:
      return kQ8_0;
    case DType::q4_0:
      return kQ4_0;
    case DType::i32:
      return kI32;
    case DType::i64:
      return kI64;
    case DType::u32:  // no unsigned tensor type in ggml: a writer refuses it before this
    case DType::f32:
    case DType::q4:
      break;
  }
  return kF32;
}

std::optional<DType> decoded_dtype(uint32_t type) {
  switch (type) {
    case kF32:
      return DType::f32;
    case kF16:
      return DType::f16;
    case kBF16:
      return DType::bf16;
    case kQ8_0:
      return DType::q8_0;
    case kQ4_0:
      return DType::q4_0;
    case kI32:
      return DType::i32;
    case kI64:
      return DType::i64;
    default:
      return std::nullopt;
  }
}

}  // namespace wgpt::io::gguf
