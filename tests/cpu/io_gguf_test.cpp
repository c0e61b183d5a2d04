// GGUF: the writer and reader agree on every stored type and metadata type; Q8_0 and Q4_0 blocks
// are llama.cpp's (a hand-worked block each); and truncated or corrupt files are errors, never
// crashes (the ASan+UBSan build runs these too).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "io/gguf_blocks.h"
#include "io_test_util.h"
#include "test_support.h"
#include "wgpt/gguf.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

GgufMetadata sample_metadata() {
  GgufMetadata metadata;
  metadata["general.architecture"] = GgufValue::string("gpt2");
  metadata["gpt2.block_count"] = GgufValue::u32(2);
  metadata["gpt2.attention.layer_norm_epsilon"] = GgufValue::f32(1e-5f);
  metadata["tokenizer.ggml.tokens"] = GgufValue::string_array({"a", "", "Ġb\xc3\xa9"});
  metadata["tokenizer.ggml.token_type"] = GgufValue::i32_array({1, -3, 2147483647});
  GgufValue flag;
  flag.type = GgufType::boolean;
  flag.ints = {1};
  metadata["flag"] = flag;
  GgufValue wide;
  wide.type = GgufType::u64;
  wide.ints = {int64_t{1} << 62};
  metadata["wide"] = wide;
  GgufValue doubles;
  doubles.type = GgufType::f64;
  doubles.is_array = true;
  doubles.floats = {0.1, -2.5e300};
  metadata["doubles"] = doubles;
  return metadata;
}

std::vector<TensorData> sample_gguf_tensors() {
  return {
      TensorData::from_floats("plain", {3, 5}, test::random_floats(15, 1)),
      TensorData::from_floats("half", {7}, test::random_floats(7, 2), DType::f16),
      TensorData::from_floats("brain", {2, 3}, test::random_floats(6, 3), DType::bf16),
      TensorData::from_floats("q8", {3, 64}, test::random_floats(192, 4), DType::q8_0),
      TensorData::from_floats("q4", {2, 32}, test::random_floats(64, 5), DType::q4_0),
      TensorData::from_ints("ids", {4}, {0, -1, 7, 2147483647}, DType::i32),
      TensorData::from_ints("wide_ids", {2}, {int64_t{1} << 40, -5}),
      TensorData::from_floats("scalar", {}, {42.0f}),
  };
}

TEST(IoGguf, MetadataRoundTripsEveryKind) {
  const GgufMetadata metadata = sample_metadata();
  const GgufFile file = load_gguf(gguf_bytes(metadata, {}));
  ASSERT_EQ(file.metadata().size(), metadata.size());
  for (const auto& [key, value] : metadata) {
    const GgufValue& read = file.value(key);
    EXPECT_EQ(read.type, value.type) << key;
    EXPECT_EQ(read.is_array, value.is_array) << key;
    EXPECT_EQ(read.ints, value.ints) << key;
    EXPECT_EQ(read.strings, value.strings) << key;
    ASSERT_EQ(read.floats.size(), value.floats.size()) << key;
    for (size_t i = 0; i < value.floats.size(); ++i) {
      // f32 values pass through float; f64 ones exactly.
      EXPECT_EQ(read.floats[i],
                value.type == GgufType::f32 ? double(float(value.floats[i])) : value.floats[i]);
    }
  }
  EXPECT_EQ(file.text("general.architecture"), "gpt2");
  EXPECT_EQ(file.integer("gpt2.block_count"), 2);
  EXPECT_FLOAT_EQ(static_cast<float>(file.number("gpt2.attention.layer_norm_epsilon")), 1e-5f);
  EXPECT_THROW(file.integer("general.architecture"), Error);
  EXPECT_THROW(file.text("gpt2.block_count"), Error);
  EXPECT_THROW(file.value("absent"), Error);
}

TEST(IoGguf, TensorsRoundTripInEveryStoredType) {
  const auto tensors = sample_gguf_tensors();
  const GgufFile file = load_gguf(gguf_bytes(sample_metadata(), tensors));
  ASSERT_EQ(file.tensors().size(), tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    const TensorData& original = tensors[t];
    const TensorData read = file.decode(file.tensors()[t]);
    EXPECT_EQ(read.name(), original.name());
    EXPECT_EQ(read.shape(), original.shape()) << original.name();
    EXPECT_EQ(read.dtype(), original.dtype()) << original.name();
    if (original.is_integer()) {
      EXPECT_EQ(std::vector<int64_t>(read.ints().begin(), read.ints().end()),
                std::vector<int64_t>(original.ints().begin(), original.ints().end()));
      continue;
    }
    // Each type's rounding bound, relative to the largest magnitude (values are in [-1, 1)).
    const double bound = original.dtype() == DType::f32    ? 0
                         : original.dtype() == DType::f16  ? 1e-3
                         : original.dtype() == DType::bf16 ? 8e-3
                         : original.dtype() == DType::q8_0 ? 1.0 / 127
                                                           : 1.0 / 8;
    for (size_t i = 0; i < original.numel(); ++i) {
      EXPECT_NEAR(read.floats()[i], original.floats()[i], bound)
          << original.name() << "[" << i << "]";
    }
  }
}

TEST(IoGguf, LayoutIsGgmlsInnermostFirstAndAligned) {
  const auto bytes = gguf_bytes(
      {}, std::vector<TensorData>{TensorData::from_floats("m", {2, 3}, {1, 2, 3, 4, 5, 6})});
  // Header: magic, version 3, one tensor, no metadata; then "m", 2 dims [3, 2], F32, offset 0.
  EXPECT_EQ(std::memcmp(bytes.data(), "GGUF", 4), 0);
  uint32_t version;
  std::memcpy(&version, bytes.data() + 4, 4);
  EXPECT_EQ(version, 3u);
  uint64_t dims[2];
  std::memcpy(dims, bytes.data() + 24 + 8 + 1 + 4, sizeof dims);
  EXPECT_EQ(dims[0], 3u);
  EXPECT_EQ(dims[1], 2u);
  EXPECT_EQ(bytes.size() % 32, 0u);
  float first;
  std::memcpy(&first, bytes.data() + (bytes.size() - 32), 4);
  EXPECT_EQ(first, 1.0f);
}

// Blocks worked by hand from llama.cpp's reference quantizers.
TEST(IoGguf, Q8_0AndQ4_0BlocksAreLlamaCpps) {
  std::vector<float> values(32, 0.0f);
  values[0] = 1.27f;   // the largest magnitude: scale 0.01
  values[1] = -0.5f;   // code -50
  values[2] = 0.004f;  // code 0 (0.4 rounds down)
  values[3] = 0.006f;  // code 1
  std::vector<uint8_t> q8;
  gguf::quantize_q8_0(values, q8);
  ASSERT_EQ(q8.size(), gguf::kQ8_0BlockBytes);
  EXPECT_EQ(static_cast<int8_t>(q8[2]), 127);
  EXPECT_EQ(static_cast<int8_t>(q8[3]), -50);
  EXPECT_EQ(static_cast<int8_t>(q8[4]), 0);
  EXPECT_EQ(static_cast<int8_t>(q8[5]), 1);
  // The scale is stored in f16 (0.01 becomes 0.0100021): -50 of it is within 50 · 2^-11 · 0.01.
  EXPECT_NEAR(gguf::dequantize_q8_0(q8, 32)[1], -0.5f, 50 * 0.01f / 2048);

  std::vector<float> fours(32, 0.0f);
  fours[0] = -8.0f;  // the largest magnitude, negative: scale -8 / -8 = 1
  fours[16] = 7.0f;  // code 15 in the high nibble of byte 0
  fours[5] = 3.4f;   // trunc(3.4 + 8.5) = 11
  std::vector<uint8_t> q4;
  gguf::quantize_q4_0(fours, q4);
  ASSERT_EQ(q4.size(), gguf::kQ4_0BlockBytes);
  EXPECT_EQ(q4[2], 0x00 | (15 << 4));
  EXPECT_EQ(q4[2 + 5] & 0x0f, 11);
  const auto back = gguf::dequantize_q4_0(q4, 32);
  EXPECT_EQ(back[0], -8.0f);
  EXPECT_EQ(back[16], 7.0f);
  EXPECT_EQ(back[5], 3.0f);
}

// A block whose scale is too small for f16 stores a zero scale: its codes must then be those of
// zeros (what it decodes to), or writing what was read would not give the same bytes (found by
// fuzz_gguf: codes of -127 under a zero scale).
TEST(IoGguf, BlocksTooSmallForAnF16ScaleStoreTheCodesOfZeros) {
  // Scales 7.9e-11 (q8_0) and 1.25e-9 (q4_0): both below half of f16's least subnormal, 2^-24.
  const std::vector<float> tiny(32, -1e-8f);
  std::vector<uint8_t> q8, q4;
  gguf::quantize_q8_0(tiny, q8);
  gguf::quantize_q4_0(tiny, q4);
  for (size_t j = 2; j < q8.size(); ++j) EXPECT_EQ(q8[j], 0) << "q8_0 byte " << j;
  for (size_t j = 2; j < q4.size(); ++j) EXPECT_EQ(q4[j], 0x88) << "q4_0 byte " << j;
  std::vector<uint8_t> q8_again, q4_again;
  gguf::quantize_q8_0(gguf::dequantize_q8_0(q8, 32), q8_again);
  gguf::quantize_q4_0(gguf::dequantize_q4_0(q4, 32), q4_again);
  EXPECT_EQ(q8_again, q8);
  EXPECT_EQ(q4_again, q4);
}

TEST(IoGguf, WriterRefusesWhatGgufCannotHold) {
  EXPECT_THROW(gguf_bytes({}, std::vector<TensorData>{TensorData::from_floats(
                                  "q", {2, 33}, std::vector<float>(66), DType::q8_0)}),
               Error);
  EXPECT_THROW(gguf_bytes({}, std::vector<TensorData>{TensorData::from_floats(
                                  "q", {32}, std::vector<float>(32, NAN), DType::q4_0)}),
               Error);
  EXPECT_THROW(
      gguf_bytes({}, std::vector<TensorData>{TensorData::from_ints("u", {1}, {1}, DType::u32)}),
      Error);
  EXPECT_THROW(
      gguf_bytes({}, std::vector<TensorData>{TensorData::from_floats("x", {1, 1, 1, 1, 1}, {1})}),
      Error);
  EXPECT_THROW(gguf_bytes({}, std::vector<TensorData>{TensorData::from_floats("x", {1}, {1}),
                                                      TensorData::from_floats("x", {1}, {1})}),
               Error);
}

TEST(IoGguf, ReaderRefusesBadHeaders) {
  const auto good = gguf_bytes(sample_metadata(), sample_gguf_tensors());
  auto bad_version = good;
  bad_version[4] = 1;
  EXPECT_THROW(load_gguf(bad_version), Error);
  auto not_gguf = good;
  not_gguf[0] = 'X';
  EXPECT_THROW(load_gguf(not_gguf), Error);
  // A tensor count far beyond the bytes present.
  auto many = good;
  many[15] = 0x7f;
  EXPECT_THROW(load_gguf(many), Error);
  // A tensor of a type ggml does not define.
  const auto one = gguf_bytes(
      {}, std::vector<TensorData>{TensorData::from_floats("t", {32}, std::vector<float>(32))});
  auto unknown_type = one;
  const size_t type_at = 24 + 8 + 1 + 4 + 8;
  unknown_type[type_at] = 99;
  EXPECT_THROW(load_gguf(unknown_type), Error);
  // Misplaced data: an offset that is not where the tensor should be.
  auto moved = one;
  moved[type_at + 4] = 32;
  EXPECT_THROW(load_gguf(moved), Error);
}

TEST(IoGguf, UndecodableTypesAreNamedOnlyWhenDecoded) {
  auto bytes = gguf_bytes(
      {}, std::vector<TensorData>{TensorData::from_floats("head", {256}, std::vector<float>(256)),
                                  TensorData::from_floats("keep", {2}, {1, 2})});
  // Relabel "head" (1024 bytes of F32) as Q6_K: 256 elements in one 210-byte block, so the next
  // tensor's offset must move to 224; patch it so the layout stays valid.
  const size_t head_type = 24 + 8 + 4 + 4 + 8;
  bytes[head_type] = 14;
  const size_t keep_offset = head_type + 4 + 8 + 8 + 4 + 4 + 8 + 4;
  const uint64_t moved = 224;
  std::memcpy(bytes.data() + keep_offset, &moved, sizeof moved);
  const size_t data_start = bytes.size() - 1024 - 32;
  std::memmove(bytes.data() + data_start + 224, bytes.data() + data_start + 1024, 8);
  bytes.resize(data_start + 256);
  const GgufFile file = load_gguf(bytes);
  EXPECT_EQ(file.decode(*file.find("keep")).floats()[1], 2.0f);
  try {
    file.decode(*file.find("head"));
    FAIL() << "a Q6_K tensor decoded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'head' is stored as Q6_K"), std::string::npos)
        << error.what();
  }
}

void decode_all(const GgufFile& file, double& checksum) {
  for (const auto& tensor : file.tensors()) {
    const TensorData data = file.decode(tensor);
    if (data.is_integer()) {
      for (const int64_t v : data.ints()) checksum += static_cast<double>(v);
    } else {
      for (const float v : data.floats()) checksum += v;
    }
  }
}

TEST(IoGguf, TruncatedAtEveryLengthIsAnError) {
  const auto bytes = gguf_bytes(sample_metadata(), sample_gguf_tensors());
  ASSERT_NO_THROW(load_gguf(bytes));
  for (size_t length = 0; length < bytes.size(); ++length) {
    // Only the padding after the last tensor may go without the file becoming unreadable.
    const std::span<const uint8_t> prefix(bytes.data(), length);
    try {
      double checksum = 0;
      decode_all(load_gguf(prefix), checksum);
      EXPECT_GE(length, bytes.size() - 32) << "a prefix of " << length << " bytes loaded";
    } catch (const Error&) {
    }
  }
}

TEST(IoGguf, FlippedBytesLoadOrThrow) {
  const auto bytes = gguf_bytes(sample_metadata(), sample_gguf_tensors());
  std::mt19937 engine(7);
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  int loaded = 0, failed = 0;
  double checksum = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto corrupt = bytes;
    for (int f = 0; f <= trial % 4; ++f) corrupt[position(engine)] = uint8_t(value(engine));
    try {
      decode_all(load_gguf(corrupt), checksum);
      ++loaded;
    } catch (const Error&) {
      ++failed;
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(failed, 0);
  ::testing::Test::RecordProperty("checksum", std::to_string(checksum));
}

TEST(IoGguf, LoadTensorsReadsGgufByContent) {
  test::ScratchDir dir;
  save_gguf(dir / "model.bin", {}, sample_gguf_tensors());
  const auto bytes = test::read_bytes(dir / "model.bin");
  EXPECT_EQ(detect_format(bytes), Format::gguf);
  const TensorFile file = load_tensors(dir / "model.bin");
  ASSERT_EQ(file.tensors.size(), sample_gguf_tensors().size());
  EXPECT_EQ(file.at("plain").floats()[4], sample_gguf_tensors()[0].floats()[4]);
  EXPECT_TRUE(file.at("plain").is_view());  // F32 maps without a copy
}

}  // namespace
}  // namespace wgpt::io
