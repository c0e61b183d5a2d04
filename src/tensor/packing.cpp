#include "tensor/packing.h"

#include <cmath>
#include <string>

#include "wgpt/io.h"

namespace wgpt::packing {
namespace {

uint16_t narrow(float value, DType dtype) {
  return dtype == DType::f16 ? io::f32_to_f16(value) : io::f32_to_bf16(value);
}

float widen(uint16_t half, DType dtype) {
  return dtype == DType::f16 ? io::f16_to_f32(half) : io::bf16_to_f32(half);
}

// One block's ten words from its group and codes (one code per element, fewer in a last block).
void put_block(const io::Q4Group& group, std::span<const uint8_t> codes, uint32_t* block) {
  for (size_t j = 0; j < codes.size(); ++j) block[j / 8] |= uint32_t{codes[j]} << (4 * (j % 8));
  block[8] = io::f32_bits(group.scale);
  block[9] = io::f32_bits(group.min);
}

}  // namespace

size_t word_of(DType dtype, size_t element) {
  return dtype == DType::q4 ? element / kQ4Block * kQ4BlockWords : element / 2;
}

std::vector<uint32_t> pack(std::span<const float> values, DType dtype) {
  std::vector<uint32_t> words(storage_bytes(dtype, values.size()) / 4, 0);
  if (dtype != DType::q4) {
    for (size_t i = 0; i < values.size(); ++i) {
      words[i / 2] |= uint32_t{narrow(values[i], dtype)} << (16 * (i % 2));
    }
    return words;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw Error("q4 cannot store the non-finite value at element " + std::to_string(i));
    }
  }
  std::vector<uint8_t> codes(kQ4Block);
  for (size_t first = 0; first < values.size(); first += kQ4Block) {
    const size_t count = std::min(kQ4Block, values.size() - first);
    const io::Q4Group group = io::quantize_q4_group(values.subspan(first, count), codes);
    put_block(group, std::span(codes).first(count), &words[word_of(dtype, first)]);
  }
  return words;
}

std::vector<uint32_t> pack_q4(const io::Q4Data& q4, size_t first, size_t count) {
  if (q4.group_size != kQ4Block || first % kQ4Block != 0) {
    throw Error("q4 weights on the GPU need groups of " + std::to_string(kQ4Block) +
                " elements, not " + std::to_string(q4.group_size));
  }
  const size_t end = first + count;
  if (q4.groups.size() < (end + kQ4Block - 1) / kQ4Block || q4.codes.size() < (end + 1) / 2) {
    throw Error("q4 data holds fewer groups or codes than " + std::to_string(end) + " elements");
  }
  std::vector<uint32_t> words(storage_bytes(DType::q4, count) / 4, 0);
  std::vector<uint8_t> codes(kQ4Block);
  for (size_t at = 0; at < count; at += kQ4Block) {
    const size_t n = std::min(kQ4Block, count - at);
    for (size_t j = 0; j < n; ++j) {
      const size_t i = first + at + j;
      codes[j] = i % 2 == 0 ? q4.codes[i / 2] & 0x0f : q4.codes[i / 2] >> 4;
    }
    put_block(q4.groups[(first + at) / kQ4Block], std::span(codes).first(n),
              &words[word_of(DType::q4, at)]);
  }
  return words;
}

std::vector<float> unpack(std::span<const uint32_t> words, size_t first, size_t count,
                          DType dtype) {
  std::vector<float> values(count);
  for (size_t n = 0; n < count; ++n) {
    const size_t i = first + n;
    if (dtype != DType::q4) {
      values[n] = widen(static_cast<uint16_t>(words[i / 2] >> (16 * (i % 2))), dtype);
      continue;
    }
    const uint32_t* block = &words[word_of(dtype, i)];
    const size_t j = i % kQ4Block;
    const io::Q4Group group{io::f32_from_bits(block[8]), io::f32_from_bits(block[9])};
    values[n] = io::dequantize_q4((block[j / 8] >> (4 * (j % 8))) & 0xf, group);
  }
  return values;
}

namespace {

// For each storage word of a row-major [k, n] matrix of `dtype`, where Layout::column_strips puts
// it (a permutation of the words). f32, f16 and bf16 move whole strip rows (kStripColumns
// elements: eight words or four); q4 moves each block's eight code words one by one (a word is
// one strip row) and its (scale, minimum) pair to the pairs after the codes.
std::vector<size_t> strip_positions(DType dtype, size_t k, size_t n, size_t words) {
  if (!fits_column_strips(dtype, {k, n}) || words != storage_bytes(dtype, k * n) / 4) {
    throw Error(std::string("column strips need an f32, f16, bf16 or q4 matrix whose columns are a "
                            "multiple of 8 (q4: 64), got ") +
                to_string(dtype) + "[" + std::to_string(k) + ", " + std::to_string(n) + "] in " +
                std::to_string(words) + " words");
  }
  const size_t strips = n / kStripColumns;
  std::vector<size_t> position(words);
  if (dtype != DType::q4) {
    const size_t unit = storage_bytes(dtype, kStripColumns) / 4;  // words per strip row
    for (size_t row = 0; row < k; ++row) {
      for (size_t strip = 0; strip < strips; ++strip) {
        for (size_t w = 0; w < unit; ++w) {
          position[(row * strips + strip) * unit + w] = (strip * k + row) * unit + w;
        }
      }
    }
    return position;
  }
  const size_t blocks_per_row = n / kQ4Block, codes = k * strips;
  for (size_t row = 0; row < k; ++row) {
    for (size_t block = 0; block < blocks_per_row; ++block) {
      const size_t first = (row * blocks_per_row + block) * kQ4BlockWords;
      for (size_t w = 0; w < kQ4Block / kStripColumns; ++w) {
        position[first + w] = (block * (kQ4Block / kStripColumns) + w) * k + row;
      }
      const size_t pair = codes + 2 * (block * k + row);
      position[first + 8] = pair;
      position[first + 9] = pair + 1;
    }
  }
  return position;
}

}  // namespace

std::vector<uint32_t> to_column_strips(std::span<const uint32_t> words, DType dtype, size_t k,
                                       size_t n) {
  const std::vector<size_t> position = strip_positions(dtype, k, n, words.size());
  std::vector<uint32_t> strips(words.size());
  for (size_t i = 0; i < words.size(); ++i) strips[position[i]] = words[i];
  return strips;
}

std::vector<uint32_t> from_column_strips(std::span<const uint32_t> words, DType dtype, size_t k,
                                         size_t n) {
  const std::vector<size_t> position = strip_positions(dtype, k, n, words.size());
  std::vector<uint32_t> rows(words.size());
  for (size_t i = 0; i < words.size(); ++i) rows[i] = words[position[i]];
  return rows;
}

}  // namespace wgpt::packing
