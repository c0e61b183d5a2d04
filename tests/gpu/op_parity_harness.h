#pragma once
// One parity harness for ops that write in place (the decode ops, and any op bound to its
// tensors): a case holds the op's tensors on the CPU — inputs and outputs, random from a seed —
// and how to run the op on a set of them. The harness runs it on CPU copies (the reference) and on
// GPU copies (the kernel) and compares every output, as ggml's test-backend-ops does for its ops.

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "ops_parity.h"
#include "wgpt/tensor.h"

namespace wgpt::test {

struct ParityCase {
  std::string name;
  std::vector<Tensor> tensors;  // on the CPU
  std::vector<size_t> outputs;  // indices of the tensors the op writes
  // Binds the op to `tensors` (all on one device, in the order above) and runs it.
  std::function<void(const std::vector<Tensor>& tensors)> run;
  float atol = 1e-5f, rtol = 1e-5f;
  // Compares an output (GPU result, CPU result); when unset, u32 outputs must be equal and float
  // ones all_close.
  std::function<::testing::AssertionResult(size_t index, const Tensor& gpu, const Tensor& cpu)>
      compare;
  // Indices of the matrices the GPU copy holds in column strips (Layout); the rest are row-major.
  std::vector<size_t> in_strips = {};
};

// A CPU tensor with its own copy of `t`'s elements.
inline Tensor copy_of(const Tensor& t) {
  if (t.dtype() == DType::u32) return Tensor::from_u32(t.to_u32(), t.shape());
  if (is_packed(t.dtype())) {
    const auto words = t.to_cpu().words();
    return Tensor::from_words({words.begin(), words.end()}, t.shape(), t.dtype());
  }
  return Tensor::from_floats(t.to_floats(), t.shape());
}

inline ::testing::AssertionResult cpu_and_gpu_agree(const ParityCase& c,
                                                    const std::shared_ptr<gpu::Context>& context) {
  std::vector<Tensor> cpu, gpu;
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const bool strips = std::find(c.in_strips.begin(), c.in_strips.end(), i) != c.in_strips.end();
    cpu.push_back(copy_of(c.tensors[i]));
    gpu.push_back(c.tensors[i].to_gpu(context, strips ? Layout::column_strips : Layout::rows));
  }
  c.run(cpu);
  c.run(gpu);
  for (size_t index : c.outputs) {
    ::testing::AssertionResult same = ::testing::AssertionSuccess();
    if (c.compare) {
      same = c.compare(index, gpu[index], cpu[index]);
    } else if (cpu[index].dtype() == DType::u32) {
      if (gpu[index].to_u32() != cpu[index].to_u32()) {
        same = ::testing::AssertionFailure() << "u32 values differ";
      }
    } else {
      same = all_close(gpu[index], cpu[index], c.atol, c.rtol);
    }
    if (!same)
      return ::testing::AssertionFailure()
             << c.name << ", output " << index << ": " << same.message();
  }
  return ::testing::AssertionSuccess();
}

}  // namespace wgpt::test
