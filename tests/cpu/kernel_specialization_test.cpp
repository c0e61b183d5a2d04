#include "gpu/kernel_specialization.h"

#include <gtest/gtest.h>

#include "wgpt/error.h"

namespace wgpt {
namespace {

constexpr char kTensorKernel[] = R"(// A comment first.
enable f16;
diagnostic(off, chromium.subgroup_matrix_uniformity);
enable chromium_experimental_subgroup_matrix;
const TILE: u32 = SUBGROUP_MATRIX_M * 4u;
)";

TEST(KernelSpecialization, OtherKernelsAreLeftAsTheyAre) {
  gpu::Limits limits;
  const std::string plain = "enable f16;\nconst X: u32 = 1u;\n";
  EXPECT_EQ(gpu::specialize_kernel("plain", plain, limits), plain);
}

TEST(KernelSpecialization, SubgroupMatrixKernelsGetTheDevicesTileAfterTheirDirectives) {
  gpu::Limits limits;
  limits.f16_matrix = {16, 8, 16, 32};
  const std::string out = gpu::specialize_kernel("tiles", kTensorKernel, limits);
  const size_t constants = out.find("const SUBGROUP_MATRIX_M: u32 = 16u;\n");
  ASSERT_NE(constants, std::string::npos);
  EXPECT_GT(constants, out.find("enable chromium_experimental_subgroup_matrix;"));
  EXPECT_LT(constants, out.find("const TILE"));
  EXPECT_NE(out.find("const SUBGROUP_MATRIX_N: u32 = 8u;\n"), std::string::npos);
  EXPECT_NE(out.find("const SUBGROUP_MATRIX_K: u32 = 16u;\n"), std::string::npos);
  EXPECT_NE(out.find("const SUBGROUP_SIZE: u32 = 32u;\n"), std::string::npos);
}

TEST(KernelSpecialization, ADeviceWithoutTensorCoresRefusesThemByName) {
  try {
    gpu::specialize_kernel("matmul_tensor", kTensorKernel, gpu::Limits{});
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("'matmul_tensor'"), std::string::npos);
  }
}

}  // namespace
}  // namespace wgpt
