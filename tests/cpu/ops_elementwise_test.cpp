#include <gtest/gtest.h>

#include <string>

#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(OpsAdd, AddsElementwise) {
  Tensor a = Tensor::from_floats({1, 2, 3, 4}, {2, 2});
  Tensor b = Tensor::from_floats({10, 20, 30, 40}, {2, 2});
  EXPECT_EQ(ops::add(a, b).to_floats(), (std::vector<float>{11, 22, 33, 44}));
}

TEST(OpsAdd, ShapeMismatchNamesOpAndShapes) {
  try {
    ops::add(Tensor::zeros({2, 3}), Tensor::zeros({3, 2}));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("add"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2, 3]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[3, 2]"), std::string::npos) << e.what();
  }
}

TEST(OpsAdd, RejectsU32) {
  EXPECT_THROW(ops::add(Tensor::zeros({2}, DType::u32), Tensor::zeros({2}, DType::u32)), Error);
}

TEST(OpsGelu, MatchesKnownValues) {
  // gelu_new at 0, ±1, 3 (from torch.nn.functional.gelu(x, approximate="tanh")), and the
  // saturated tails.
  Tensor x = Tensor::from_floats({0.0f, 1.0f, -1.0f, 3.0f, 30.0f, -30.0f}, {6});
  std::vector<float> y = ops::gelu(x).to_floats();
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], 0.8411920f, 1e-6);
  EXPECT_NEAR(y[2], -0.1588080f, 1e-6);
  EXPECT_NEAR(y[3], 2.9963627f, 1e-6);
  EXPECT_EQ(y[4], 30.0f);
  EXPECT_EQ(y[5], 0.0f);
}

}  // namespace
}  // namespace wgpt
