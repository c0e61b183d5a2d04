#pragma once
// loss.svg: the training loss (per step, and its running mean) and the held-out loss (per
// evaluation) against the step, as a standalone SVG document.

#include <string>
#include <vector>

#include "train/metrics_log.h"

namespace wgpt::train {

std::string loss_curve_svg(const std::vector<LossPoint>& train,
                           const std::vector<LossPoint>& validation);

}  // namespace wgpt::train
