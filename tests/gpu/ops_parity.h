#pragma once
// Shared by the ops parity tests: compare a GPU result with the CPU reference elementwise.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "wgpt/tensor.h"

namespace wgpt::test {

// Passes when every |actual − expected| ≤ atol + rtol·|expected| (NaN never passes); otherwise
// reports how many differ, the worst one and where.
inline ::testing::AssertionResult all_close(const Tensor& actual, const Tensor& expected,
                                            float atol, float rtol) {
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure()
           << "shapes differ: " << actual.describe() << " vs " << expected.describe();
  }
  std::vector<float> got = actual.to_floats();
  std::vector<float> want = expected.to_floats();
  size_t bad = 0, worst = 0;
  double worst_excess = -1.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double error = std::fabs(static_cast<double>(got[i]) - want[i]);
    double allowed = atol + rtol * std::fabs(want[i]);
    if (!(error <= allowed)) {
      ++bad;
      double excess = std::isnan(error) ? INFINITY : error - allowed;
      if (excess > worst_excess) worst_excess = excess, worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " elements differ; worst at " << worst << ": "
         << got[worst] << " vs " << want[worst];
}

}  // namespace wgpt::test
