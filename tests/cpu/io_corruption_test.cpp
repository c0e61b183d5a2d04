// Corrupt and truncated files: every prefix and many byte flips of valid safetensors and fzm images
// must either load or throw wgpt::Error — never crash, read out of bounds or allocate wildly (the
// ASan+UBSan build runs this too).

#include <gtest/gtest.h>

#include <random>

#include "index_check.h"
#include "io_test_util.h"
#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

std::vector<TensorData> sample_tensors() {
  return {TensorData::from_floats("weight", {4, 9}, test::random_floats(36, 11)),
          TensorData::from_floats("bias", {9}, test::random_floats(9, 12), DType::f16),
          TensorData::from_ints("ids", {3}, {1, 2, 50256})};
}

struct Outcomes {
  int loaded = 0;
  int failed = 0;
  double checksum = 0;  // of every element loaded, so that no read can be optimised away
};

// Loads and touches every element, so a bad view or length shows up under the sanitizers.
void load_or_error(std::span<const uint8_t> bytes, Outcomes& outcomes) {
  EXPECT_TRUE(index_agrees(bytes)) << "the header-only index and the loader disagree";
  try {
    const auto file = load_tensors(bytes);
    for (const auto& tensor : file.tensors) {
      if (tensor.is_integer()) {
        for (const int64_t v : tensor.ints()) outcomes.checksum += static_cast<double>(v);
      } else {
        for (const float v : tensor.floats()) outcomes.checksum += v;
      }
    }
    ++outcomes.loaded;
  } catch (const Error&) {
    ++outcomes.failed;
  }
}

void truncate_everywhere(const std::vector<uint8_t>& bytes) {
  ASSERT_NO_THROW(load_tensors(bytes));
  for (size_t length = 0; length < bytes.size(); ++length) {
    const std::span<const uint8_t> prefix(bytes.data(), length);
    EXPECT_THROW(load_tensors(prefix), Error) << "prefix of " << length << " bytes loaded";
    EXPECT_THROW(read_index(prefix), Error) << "prefix of " << length << " bytes indexed";
  }
}

// Both outcomes must occur: flips in the data load, flips in the headers are caught.
void flip_bytes(const std::vector<uint8_t>& bytes, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  Outcomes outcomes;
  for (int trial = 0; trial < 3000; ++trial) {
    auto corrupt = bytes;
    const int flips = 1 + trial % 4;
    for (int f = 0; f < flips; ++f) corrupt[position(engine)] = static_cast<uint8_t>(value(engine));
    load_or_error(corrupt, outcomes);
  }
  EXPECT_GT(outcomes.loaded, 0);
  EXPECT_GT(outcomes.failed, 0);
  ::testing::Test::RecordProperty("checksum", std::to_string(outcomes.checksum));
}

TEST(IoCorruption, SafetensorsTruncatedAtEveryLengthIsAnError) {
  truncate_everywhere(safetensors_bytes(sample_tensors(), {{"k", "v"}}));
}

TEST(IoCorruption, FzmTruncatedAtEveryLengthIsAnError) {
  auto tensors = sample_tensors();
  tensors.pop_back();  // fzm holds floats only
  truncate_everywhere(fzm_bytes(tensors));
}

TEST(IoCorruption, SafetensorsWithFlippedBytesLoadsOrThrows) {
  flip_bytes(safetensors_bytes(sample_tensors(), {{"k", "v"}}), 1);
}

TEST(IoCorruption, FzmWithFlippedBytesLoadsOrThrows) {
  auto tensors = sample_tensors();
  tensors.pop_back();
  flip_bytes(fzm_bytes(tensors), 2);
}

// A name libFuzzer gives the inputs it adds to a corpus: their SHA-1, 40 hex digits.
bool found_by_fuzzer(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.size() == 40 && name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The fuzzers' hand-made seeds are valid files, so fuzzing starts from inputs that load (what
// `make fuzz` merges into the corpus beside them may be anything).
TEST(IoCorruption, FuzzSeedsLoad) {
  const auto corpus = test::source_dir() / "tests/fuzz/corpus";
  for (const auto& [folder, format] :
       {std::pair{"fuzz_safetensors", Format::safetensors}, std::pair{"fuzz_fzm", Format::fzm},
        std::pair{"fuzz_gguf", Format::gguf}}) {
    int seeds = 0;
    for (const auto& entry : std::filesystem::directory_iterator(corpus / folder)) {
      if (found_by_fuzzer(entry.path())) continue;
      const auto bytes = test::read_bytes(entry.path());
      EXPECT_EQ(detect_format(bytes), format) << entry.path();
      EXPECT_NO_THROW(load_tensors(entry.path())) << entry.path();
      ++seeds;
    }
    EXPECT_GE(seeds, 3) << folder;
  }
}

}  // namespace
}  // namespace wgpt::io
