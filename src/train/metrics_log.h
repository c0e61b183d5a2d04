#pragma once
// metrics.jsonl: one JSON object per line — every step's loss, learning rate, gradient norm and
// speed; every evaluation's held-out loss; every sample's text — plus the history the loss curve
// is drawn from.

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wgpt::train {

struct LossPoint {
  size_t step;
  double loss;
};

class MetricsLog {
 public:
  // Starts the log afresh, or — resuming at `resume_step` — keeps the lines of steps up to it and
  // drops later ones (they belong to a run that did not reach its next checkpoint) and any torn
  // last line.
  MetricsLog(std::filesystem::path path, std::optional<size_t> resume_step);
  void append(const nlohmann::json& line);
  const std::vector<LossPoint>& train_losses() const { return train_; }
  const std::vector<LossPoint>& validation_losses() const { return validation_; }

 private:
  void remember(const nlohmann::json& line);
  std::filesystem::path path_;
  std::vector<LossPoint> train_, validation_;
};

}  // namespace wgpt::train
