#pragma once
// The packed float dtypes (f16, bf16, q4; their layout is in include/wgpt/tensor.h): from floats
// to storage words and back. The GPU kernels read the same layout (src/kernels/lib/load*_*.wgsl).

#include <cstdint>
#include <span>
#include <vector>

#include "wgpt/io.h"
#include "wgpt/tensor.h"

namespace wgpt::packing {

// `values` as storage words of `dtype` (f16 and bf16 round to nearest even; q4 quantizes each block
// as a .fzm group: the values must be finite).
std::vector<uint32_t> pack(std::span<const float> values, DType dtype);
// q4 storage words of elements [first, first + count) of a tensor already quantized in groups of
// kQ4Block elements (a .fzm tensor); `first` starts a group.
std::vector<uint32_t> pack_q4(const io::Q4Data& q4, size_t first, size_t count);
// Elements [first, first + count) of packed `words` as f32.
std::vector<float> unpack(std::span<const uint32_t> words, size_t first, size_t count, DType dtype);
// The word holding element `element` of a packed dtype (for q4: its block's first word).
size_t word_of(DType dtype, size_t element);

// The storage words of a row-major [k, n] matrix of `dtype` (not u32; f32 as its bits) in
// Layout::column_strips, and back. Throws unless n is a multiple of kStripColumns (q4: kQ4Block)
// and `words` holds exactly the matrix.
std::vector<uint32_t> to_column_strips(std::span<const uint32_t> words, DType dtype, size_t k,
                                       size_t n);
std::vector<uint32_t> from_column_strips(std::span<const uint32_t> words, DType dtype, size_t k,
                                         size_t n);

}  // namespace wgpt::packing
