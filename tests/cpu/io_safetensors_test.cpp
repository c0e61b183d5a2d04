// safetensors: round trips of every dtype, the HF fixtures, and the reader's and writer's errors.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "io_test_util.h"
#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

using test::ScratchDir;

std::vector<TensorData> one_of_each_dtype() {
  auto floats = test::random_floats(6 * 5, 1, -3.0f, 3.0f);
  return {
      TensorData::from_floats("f32", {6, 5}, floats),
      TensorData::from_floats("f16", {5, 6}, floats, DType::f16),
      TensorData::from_floats("bf16", {30}, floats, DType::bf16),
      TensorData::from_ints("i64", {3}, {-(int64_t{1} << 40), 0, 50256}),
      TensorData::from_ints("i32", {2, 2}, {-5, 7, 2147483647, -2147483647 - 1}, DType::i32),
      TensorData::from_ints("u32", {2}, {0, 4294967295}, DType::u32),
      TensorData::from_floats("scalar", {}, {2.5f}),
      TensorData::from_floats("empty", {0, 4}, {}),
  };
}

void expect_same(const TensorData& expected, const TensorData& actual, float tolerance) {
  SCOPED_TRACE(expected.name());
  EXPECT_EQ(actual.name(), expected.name());
  EXPECT_EQ(actual.shape(), expected.shape());
  EXPECT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.numel(), expected.numel());
  if (expected.is_integer()) {
    EXPECT_TRUE(std::equal(expected.ints().begin(), expected.ints().end(), actual.ints().begin()));
    return;
  }
  for (size_t i = 0; i < expected.numel(); ++i) {
    const float want = expected.floats()[i];
    EXPECT_NEAR(actual.floats()[i], want, tolerance * std::abs(want)) << "element " << i;
  }
}

TEST(Safetensors, RoundTripsEveryDtypeAndMetadata) {
  ScratchDir dir;
  const auto tensors = one_of_each_dtype();
  const Metadata metadata{{"prompt", "ROMEO:\nWhat say'st thou"}, {"n_new", "40"}};
  save_safetensors(dir / "all.safetensors", tensors, metadata);
  const auto file = load_safetensors(dir / "all.safetensors");
  EXPECT_EQ(file.metadata, metadata);
  ASSERT_EQ(file.tensors.size(), tensors.size());
  // F16 keeps 11 significant bits and BF16 8: relative errors of at most 2^-11 and 2^-8.
  for (size_t i = 0; i < tensors.size(); ++i) {
    const DType dtype = tensors[i].dtype();
    const float tolerance = dtype == DType::f16 ? 0x1p-11f : dtype == DType::bf16 ? 0x1p-8f : 0.0f;
    expect_same(tensors[i], file.tensors[i], tolerance);
  }
  // Narrowing happened once: saving what was read reproduces the file byte for byte.
  EXPECT_EQ(safetensors_bytes(file.tensors, file.metadata),
            test::read_bytes(dir / "all.safetensors"));
}

TEST(Safetensors, MappedF32TensorsAreViewsAndBytesAreCopies) {
  ScratchDir dir;
  const auto tensors = one_of_each_dtype();
  save_safetensors(dir / "all.safetensors", tensors);
  const auto mapped = load_safetensors(dir / "all.safetensors");
  EXPECT_TRUE(mapped.at("f32").is_view());
  EXPECT_FALSE(mapped.at("f16").is_view());

  const auto bytes = test::read_bytes(dir / "all.safetensors");
  const auto copied = load_safetensors(bytes);
  EXPECT_FALSE(copied.at("f32").is_view());
  for (size_t i = 0; i < tensors.size(); ++i) expect_same(mapped.tensors[i], copied.tensors[i], 0);

  // A view outlives the TensorFile it came from: the mapping is shared, not owned by the file.
  const TensorData survivor = load_safetensors(dir / "all.safetensors").at("f32");
  expect_same(tensors[0], survivor, 0);
}

TEST(Safetensors, HeaderIsPaddedToEightBytes) {
  for (const std::string name : {"a", "ab", "abc", "abcd", "abcde"}) {
    const auto bytes = safetensors_bytes(std::vector{TensorData::from_floats(name, {1}, {1.0f})});
    uint64_t header_size;
    std::memcpy(&header_size, bytes.data(), 8);
    EXPECT_EQ(header_size % 8, 0u) << name;
    EXPECT_EQ(bytes.size(), 8 + header_size + 4);
  }
}

// HF's own model files (tests/fixtures/hf): our writer reproduces them byte for byte after our
// reader read them. (Goldens are not compared: their metadata keys are not in sorted order, which
// Metadata keeps.)
TEST(Safetensors, RewritesHfFilesByteIdentically) {
  for (const char* name : {"char-tiny/model.safetensors", "gpt2-tiny/model.safetensors"}) {
    const auto path = test::hf_fixture(name);
    const auto file = load_safetensors(path);
    EXPECT_EQ(safetensors_bytes(file.tensors, file.metadata), test::read_bytes(path)) << name;
  }
}

TEST(Safetensors, ReadsHfGolden) {
  const auto golden = load_safetensors(test::hf_fixture("gpt2-tiny/golden.safetensors"));
  EXPECT_FALSE(golden.metadata.at("prompt").empty());
  const auto& input_ids = golden.at("input_ids");
  EXPECT_EQ(input_ids.dtype(), DType::i64);
  ASSERT_EQ(input_ids.shape().size(), 1u);
  for (const int64_t id : input_ids.ints()) EXPECT_TRUE(id >= 0 && id < 50257) << id;
  const int64_t t = input_ids.shape()[0];
  EXPECT_EQ(golden.at("logits").shape(), (Shape{t, 50257}));
  EXPECT_EQ(golden.at("loss").shape(), Shape{});
  EXPECT_EQ(golden.at("loss").numel(), 1u);
  // Attention rows are probability distributions: a decoding error would break the sums.
  const auto& attn = golden.at("attn.0");
  ASSERT_EQ(attn.shape().size(), 3u);
  const auto rows = attn.numel() / static_cast<size_t>(t);
  for (size_t r = 0; r < rows; ++r) {
    const auto row = attn.floats().subspan(r * static_cast<size_t>(t), static_cast<size_t>(t));
    EXPECT_NEAR(std::accumulate(row.begin(), row.end(), 0.0), 1.0, 1e-5) << "row " << r;
  }
}

TEST(Safetensors, AccessorsRejectTheWrongKind) {
  const auto floats = TensorData::from_floats("w", {2}, {1, 2});
  const auto ints = TensorData::from_ints("ids", {2}, {1, 2});
  EXPECT_THROW(floats.ints(), Error);
  EXPECT_THROW(ints.floats(), Error);
  EXPECT_THROW(TensorData::from_floats("w", {3}, {1, 2}), Error);
  EXPECT_THROW(TensorData::from_floats("w", {-1}, {}), Error);
  EXPECT_THROW(TensorData::from_floats("w", {1}, {1}, DType::i32), Error);
  EXPECT_THROW(TensorData::from_ints("ids", {1}, {1}, DType::f16), Error);
  TensorFile file;
  file.tensors.push_back(floats);
  EXPECT_EQ(file.find("nope"), nullptr);
  try {
    file.at("nope");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
}

TEST(Safetensors, WriterRejectsBadTensors) {
  const auto ok = TensorData::from_floats("w", {1}, {1});
  EXPECT_THROW(safetensors_bytes(std::vector{ok, ok}), Error);
  EXPECT_THROW(safetensors_bytes(std::vector{TensorData::from_floats("__metadata__", {1}, {1})}),
               Error);
  EXPECT_THROW(
      safetensors_bytes(std::vector{TensorData::from_ints("i", {1}, {1LL << 33}, DType::i32)}),
      Error);
  EXPECT_THROW(safetensors_bytes(std::vector{TensorData::from_ints("u", {1}, {-1}, DType::u32)}),
               Error);
  EXPECT_THROW(safetensors_bytes(std::vector{TensorData::from_floats("\xff", {1}, {1})}), Error);
}

// A failed save leaves the previous file untouched and no temporary file behind.
TEST(Safetensors, FailedSaveKeepsTheOldFile) {
  ScratchDir dir;
  const auto path = dir / "model.safetensors";
  save_safetensors(path, one_of_each_dtype());
  const auto before = test::read_bytes(path);
  const std::vector bad{TensorData::from_floats("w", {1}, {1}),
                        TensorData::from_ints("i", {1}, {1LL << 40}, DType::i32)};
  EXPECT_THROW(save_safetensors(path, bad), Error);
  EXPECT_EQ(test::read_bytes(path), before);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

// Builds a file from a header text and a data section, for the reader's error cases.
std::vector<uint8_t> raw_file(const std::string& header, size_t data_bytes) {
  std::vector<uint8_t> bytes(8 + header.size() + data_bytes, 0);
  const uint64_t size = header.size();
  std::memcpy(bytes.data(), &size, 8);
  std::memcpy(bytes.data() + 8, header.data(), header.size());
  return bytes;
}

void expect_safetensors_error(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    load_safetensors(bytes, "case.safetensors");
    FAIL() << "no error; expected one mentioning: " << fragment;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("case.safetensors"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST(Safetensors, ReaderNamesWhatIsWrong) {
  const auto tensor = [](const std::string& dtype, const std::string& shape, int begin, int end) {
    return R"({"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":[)" +
           std::to_string(begin) + "," + std::to_string(end) + "]}";
  };
  expect_safetensors_error({1, 2, 3}, "header length");
  expect_safetensors_error(raw_file("{", 0), "not valid JSON");
  expect_safetensors_error(raw_file("[]", 0), "not a JSON object");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F64", "[1]", 0, 8) + "}", 8), "F64");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[-1]", 0, 4) + "}", 4),
                           "non-negative");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[2]", 0, 4) + "}", 4),
                           "do not hold");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[1]", 4, 0) + "}", 4),
                           "end before begin");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[1]", 0, 4) + "}", 2), "truncated");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[1]", 0, 4) + "}", 8), "holds 8");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[1]", 0, 4) + R"(,"b":)" +
                                        tensor("F32", "[1]", 0, 4) + "}",
                                    8),
                           "overlap");
  expect_safetensors_error(raw_file(R"({"a":)" + tensor("F32", "[1]", 4, 8) + "}", 8), "gap");
  expect_safetensors_error(raw_file(R"({"a":{"dtype":"F32","shape":[1]}})", 4), "data_offsets");
  expect_safetensors_error(raw_file(R"({"__metadata__":{"k":1}})", 0), "not a string");
  expect_safetensors_error(
      raw_file(R"({"a":)" + tensor("F32", "[4294967296,4294967296,4294967296]", 0, 4) + "}", 4),
      "too large");
}

}  // namespace
}  // namespace wgpt::io
