#include <gtest/gtest.h>

#include <optional>

#include "test_support.h"
#include "wgpt/ops.h"

namespace wgpt {
namespace {

TEST(GpuTensor, RoundTripsFloatsAndIds) {
  auto context = test::gpu_context();
  std::vector<float> values = test::random_floats(257, 1);
  Tensor gpu = Tensor::from_floats(values, {257}).to_gpu(context);
  EXPECT_TRUE(gpu.is_gpu());
  EXPECT_EQ(gpu.to_floats(), values);
  std::vector<uint32_t> ids = {0, 50256, 0xffffffffu, 0x7fc00001u};
  EXPECT_EQ(Tensor::from_u32(ids, {4}).to_gpu(context).to_u32(), ids);
}

TEST(GpuTensor, ViewsReadBackTheirOwnElements) {
  auto context = test::gpu_context();
  std::vector<float> values = test::random_floats(30, 2);
  Tensor gpu = Tensor::from_floats(values, {10, 3}).to_gpu(context);
  std::vector<float> row7 = gpu.rows(7, 1).to_floats();
  EXPECT_EQ(row7, std::vector<float>(values.begin() + 21, values.begin() + 24));
}

TEST(GpuTensor, AsyncReadback) {
  auto context = test::gpu_context();
  Tensor gpu = Tensor::from_floats({1, 2, 3}, {3}).to_gpu(context);
  std::optional<Result<Tensor>> result;
  gpu.to_cpu_async([&](Result<Tensor> r) { result.emplace(std::move(r)); });
  while (!result) context->poll();
  EXPECT_EQ(result->value().to_floats(), (std::vector<float>{1, 2, 3}));
}

TEST(GpuTensor, MixedDevicesAreAnError) {
  auto context = test::gpu_context();
  Tensor cpu = Tensor::zeros({4});
  try {
    ops::add(cpu, cpu.to_gpu(context));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("different devices"), std::string::npos) << e.what();
  }
}

TEST(GpuTensor, AMatrixInColumnStripsReadsBackRowMajor) {
  auto context = test::gpu_context();
  for (DType dtype : {DType::f32, DType::f16, DType::bf16, DType::q4}) {
    SCOPED_TRACE(to_string(dtype));
    const Tensor host = Tensor::from_floats(test::random_floats(5 * 128, 1), {5, 128}, dtype);
    const Tensor gpu = host.to_gpu(context, Layout::column_strips);
    EXPECT_EQ(gpu.layout(), Layout::column_strips);
    EXPECT_EQ(gpu.to_cpu().layout(), Layout::rows);
    EXPECT_EQ(gpu.to_floats(), host.to_floats());
    std::optional<std::vector<float>> later;
    gpu.to_cpu_async([&](Result<Tensor> t) { later = t.value().to_floats(); });
    while (!later) context->poll();
    EXPECT_EQ(later, host.to_floats());
    // Used whole: no views, no other shape, no second layout of the same storage.
    EXPECT_THROW(gpu.rows(0, 2), Error);
    EXPECT_THROW(gpu.reshape({128, 5}), Error);
    EXPECT_THROW(gpu.to_gpu(context), Error);
  }
  EXPECT_THROW(Tensor::from_floats(test::random_floats(5 * 12, 1), {5, 12}, DType::f16)
                   .to_gpu(context, Layout::column_strips),
               Error);
}

}  // namespace
}  // namespace wgpt
