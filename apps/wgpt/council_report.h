#pragma once
// What `wgpt council` says about a run: the per-token table (who led, the router's weights, the
// consensus, each expert's own choice) and the summary (how often the experts split, who led how
// often), as text or JSON.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "wgpt/council.h"

namespace wgpt::cli {

class CouncilReport {
 public:
  CouncilReport(const council::Council& council, const tokenizer::Tokenizer& tokenizer)
      : council_(council), tokenizer_(tokenizer) {}

  // Records a step (its row of the table).
  void add(const council::Step& step);
  // One step as a JSON object: its token, consensus and leader, the merged top tokens, and each
  // expert's weight, entropy and top tokens.
  nlohmann::ordered_json step_json(size_t index, const council::Step& step) const;
  // The table of the steps kept (`accepted` of them: a step the run stopped at is not shown).
  void print_table(size_t accepted) const;
  // "experts split on …, mean consensus …, led: …" for the first `accepted` steps.
  std::string summary(size_t accepted) const;
  nlohmann::ordered_json summary_json(size_t accepted) const;

 private:
  struct Row {
    uint32_t chosen;
    size_t leader;
    std::vector<float> weights;
    std::vector<uint32_t> picks;  // each expert's own most likely token
    float consensus;
  };
  const council::Council& council_;
  const tokenizer::Tokenizer& tokenizer_;
  std::vector<Row> rows_;
};

}  // namespace wgpt::cli
