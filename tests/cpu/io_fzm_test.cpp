// fzm (Forge q4): the council checkpoint, the byte layout, the quantization error bound and errors.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "io_test_util.h"
#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::io {
namespace {

using test::ScratchDir;

// The size of an fzm file holding these shapes, from the layout: 8 bytes of file header, then per
// tensor its header, 8 bytes per group and half a byte per element.
uint64_t expected_fzm_size(const std::vector<TensorData>& tensors) {
  uint64_t size = 8;
  for (const auto& t : tensors) {
    const uint64_t groups = std::max<uint64_t>(1, (t.numel() + kFzmGroupSize - 1) / kFzmGroupSize);
    size += 2 + t.name().size() + 1 + 4 * t.shape().size() + 8 + 8 * groups + (t.numel() + 1) / 2;
  }
  return size;
}

TEST(Fzm, LoadsTheCouncilExpert) {
  const auto shared = test::shared_fixtures();
  if (!shared) GTEST_SKIP() << "../shared/fixtures is absent (forge-council is read from there)";
  const auto path = *shared / "forge-council/expert0.fzm";
  const auto file = load_fzm(path);
  EXPECT_EQ(expected_fzm_size(file.tensors), std::filesystem::file_size(path));
  EXPECT_TRUE(file.metadata.empty());
  const int64_t width = 128, vocab = 65, positions = 256;
  EXPECT_EQ(file.tensors.front().name(), "wte.weight");
  EXPECT_EQ(file.at("wte.weight").shape(), (Shape{vocab, width}));
  EXPECT_EQ(file.at("wpe.weight").shape(), (Shape{positions, width}));
  EXPECT_EQ(file.at("ln_f.weight").shape(), Shape{width});
  for (int layer = 0; layer < 4; ++layer) {
    const std::string prefix = "h." + std::to_string(layer) + ".";
    EXPECT_EQ(file.at(prefix + "attn.c_attn.weight").shape(), (Shape{width, 3 * width}));
    EXPECT_EQ(file.at(prefix + "attn.c_proj.weight").shape(), (Shape{width, width}));
    EXPECT_EQ(file.at(prefix + "mlp.c_fc.weight").shape(), (Shape{width, 4 * width}));
    EXPECT_EQ(file.at(prefix + "mlp.c_proj.weight").shape(), (Shape{4 * width, width}));
  }
  EXPECT_EQ(file.find("h.4.ln_1.weight"), nullptr);
  for (const auto& tensor : file.tensors) {
    EXPECT_EQ(tensor.dtype(), DType::q4) << tensor.name();
    const auto values = tensor.floats();
    EXPECT_TRUE(std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); }))
        << tensor.name();
  }
  // LayerNorm gains of a trained model stay near 1; biases near 0.
  const auto gain = file.at("ln_f.weight").floats();
  const double mean_gain = std::accumulate(gain.begin(), gain.end(), 0.0) / gain.size();
  EXPECT_GT(mean_gain, 0.3);
  EXPECT_LT(mean_gain, 3.0);
  // Sniffing picks the codec by content, and re-saving keeps the size (same names and shapes).
  EXPECT_EQ(load_tensors(path).tensors.size(), file.tensors.size());
  EXPECT_EQ(fzm_bytes(file.tensors).size(), std::filesystem::file_size(path));
}

// A hand-assembled file checks the byte layout: group header order, nibble order, the short last
// group, and dequantization as code · scale + min.
TEST(Fzm, DecodesTheDocumentedLayout) {
  std::vector<uint8_t> bytes{'F', 'Z', 'M', '1', 1, 0, 0, 0};
  const auto put = [&](auto value) {
    const auto* p = reinterpret_cast<const uint8_t*>(&value);
    bytes.insert(bytes.end(), p, p + sizeof value);
  };
  put(uint16_t{1});
  bytes.push_back('x');
  bytes.push_back(1);  // ndim
  put(uint32_t{5});    // shape [5]
  put(uint32_t{3});    // group size 3: groups {0,1,2} and {3,4}
  put(uint32_t{2});
  put(0.5f), put(-1.0f);  // group 0: scale, min
  put(2.0f), put(10.0f);  // group 1
  // codes 1, 15, 0, 3, 7 → bytes (15<<4 | 1), (3<<4 | 0), (0<<4 | 7)
  bytes.insert(bytes.end(), {0xf1, 0x30, 0x07});
  const auto file = load_fzm(bytes);
  ASSERT_EQ(file.tensors.size(), 1u);
  const auto values = file.at("x").floats();
  const std::vector<float> expected{1 * 0.5f - 1, 15 * 0.5f - 1, -1, 3 * 2.0f + 10, 7 * 2.0f + 10};
  EXPECT_EQ(std::vector<float>(values.begin(), values.end()), expected);
  EXPECT_EQ(detect_format(bytes), Format::fzm);
}

// Quantizing maps each group's [min, max] onto codes 0..15 and rounds to the nearest code, so an
// element is off by at most half a step, (max − min) / 30, plus the f32 rounding of the multiply,
// the add and the step (a few ulps of the group's magnitude).
TEST(Fzm, RoundTripStaysWithinHalfAStep) {
  ScratchDir dir;
  std::vector<TensorData> tensors{
      TensorData::from_floats("matrix", {33, 70}, test::random_floats(33 * 70, 7, -2.0f, 2.0f)),
      TensorData::from_floats("odd", {3, 3, 7}, test::random_floats(63, 8, 100.0f, 101.0f)),
      TensorData::from_floats("tiny", {1}, {0.25f}),
      TensorData::from_floats("constant", {130}, std::vector<float>(130, -3.5f)),
      TensorData::from_floats("empty", {0}, {}),
      TensorData::from_floats("scalar", {}, {-7.0f}),
  };
  save_fzm(dir / "model.fzm", tensors);
  EXPECT_EQ(std::filesystem::file_size(dir / "model.fzm"), expected_fzm_size(tensors));
  const auto file = load_tensors(dir / "model.fzm");
  ASSERT_EQ(file.tensors.size(), tensors.size());
  for (size_t t = 0; t < tensors.size(); ++t) {
    const auto& original = tensors[t];
    const auto& loaded = file.tensors[t];
    SCOPED_TRACE(original.name());
    EXPECT_EQ(loaded.name(), original.name());
    EXPECT_EQ(loaded.shape(), original.shape());
    const auto in = original.floats();
    const auto out = loaded.floats();
    ASSERT_EQ(out.size(), in.size());
    for (size_t first = 0; first < in.size(); first += kFzmGroupSize) {
      const auto group = in.subspan(first, std::min<size_t>(kFzmGroupSize, in.size() - first));
      const auto [lo, hi] = std::minmax_element(group.begin(), group.end());
      const float magnitude = std::max(std::abs(*lo), std::abs(*hi));
      const float bound = (*hi - *lo) / 30 + 4 * std::numeric_limits<float>::epsilon() * magnitude;
      for (size_t i = first; i < first + group.size(); ++i) {
        ASSERT_LE(std::abs(out[i] - in[i]), bound) << "element " << i;
      }
    }
  }
  // Constant groups are exact: code 0, min = the value.
  EXPECT_EQ(file.at("constant").floats()[129], -3.5f);
  EXPECT_EQ(file.at("scalar").floats()[0], -7.0f);
}

// Found by the fzm fuzzer: a group whose spread divided by 15 underflows to zero (subnormal
// values) once made NaN codes, undefined behaviour when narrowed to a byte.
TEST(Fzm, SubnormalSpreadsQuantizeToTheMinimum) {
  const float smallest = std::numeric_limits<float>::denorm_min();
  const std::vector<TensorData> tensors{
      TensorData::from_floats("w", {3}, {0.0f, smallest, 2 * smallest})};
  const auto loaded = load_fzm(fzm_bytes(tensors));
  for (float value : loaded.at("w").floats()) EXPECT_EQ(value, 0.0f);
}

TEST(Fzm, WriterRejectsWhatQ4CannotHold) {
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_ints("ids", {1}, {3})}), Error);
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_floats("w", {2}, {1.0f, NAN})}), Error);
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_floats("w", {2}, {-3e38f, 3e38f})}), Error);
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_floats("", {1}, {1})}), Error);
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_floats("w", {1}, {1}),
                                     TensorData::from_floats("w", {1}, {1})}),
               Error);
  EXPECT_THROW(fzm_bytes(std::vector{TensorData::from_floats("w", {int64_t{1} << 32, 0}, {})}),
               Error);
}

void expect_fzm_error(const std::vector<uint8_t>& bytes, const std::string& fragment) {
  try {
    load_fzm(bytes, "case.fzm");
    FAIL() << "no error; expected one mentioning: " << fragment;
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("case.fzm"), std::string::npos) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

// Overwrites the little-endian u32 at `offset`.
std::vector<uint8_t> with_u32(std::vector<uint8_t> bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, 4);
  return bytes;
}

TEST(Fzm, ReaderNamesWhatIsWrong) {
  const auto good =
      fzm_bytes(std::vector{TensorData::from_floats("w", {100}, test::random_floats(100, 3))});
  ASSERT_NO_THROW(load_fzm(good));
  // Offsets in `good`: count at 4; name length 8, name 10, ndim 11, dim 12, group size 16,
  // group count 20, groups from 24.
  expect_fzm_error({'G', 'G', 'U', 'F', 0, 0, 0, 0}, "FZM1");
  expect_fzm_error(std::vector<uint8_t>(good.begin(), good.end() - 1), "codes");
  expect_fzm_error(with_u32(good, 4, 2), "tensor #1");
  expect_fzm_error(with_u32(good, 16, 0), "group size 0");
  expect_fzm_error(with_u32(good, 20, 1), "needs 2");
  expect_fzm_error(with_u32(good, 12, 0xffffffffu), "needs 67108864");
  auto trailing = good;
  trailing.push_back(0);
  expect_fzm_error(trailing, "1 bytes follow");
  auto twice = good;
  twice[4] = 2;
  twice.insert(twice.end(), good.begin() + 8, good.end());
  expect_fzm_error(twice, "two tensors");
}

}  // namespace
}  // namespace wgpt::io
