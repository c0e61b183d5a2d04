#include "council_report.h"

#include <algorithm>
#include <cstdio>

#include "token_json.h"

namespace wgpt::cli {
namespace {

// A token as a JSON string ("\n" rather than a line break), padded to `width` columns.
std::string shown(const tokenizer::Tokenizer& tokenizer, uint32_t id, size_t width) {
  std::string text = dump_json(tokenizer.token_bytes(id));
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

}  // namespace

void CouncilReport::add(const council::Step& step) {
  Row row{step.chosen, step.leader, {}, {}, step.consensus};
  for (const council::ExpertStep& expert : step.experts) {
    row.weights.push_back(expert.weight);
    row.picks.push_back(expert.top.front().id);
  }
  rows_.push_back(std::move(row));
}

nlohmann::ordered_json CouncilReport::step_json(size_t index, const council::Step& step) const {
  nlohmann::ordered_json experts = nlohmann::ordered_json::array();
  for (size_t i = 0; i < step.experts.size(); ++i) {
    const council::ExpertStep& expert = step.experts[i];
    experts.push_back({{"name", council_.experts()[i].name},
                       {"weight", expert.weight},
                       {"entropy", expert.entropy},
                       {"top", top_json(tokenizer_, expert.top)}});
  }
  return {{"step", index},
          {"token", token_json(tokenizer_, step.chosen)},
          {"consensus", step.consensus},
          {"leader", council_.experts()[step.leader].name},
          {"top", top_json(tokenizer_, step.top)},
          {"experts", std::move(experts)}};
}

void CouncilReport::print_table(size_t accepted) const {
  std::printf("\nexperts: ");
  for (size_t i = 0; i < council_.size(); ++i) {
    std::printf("%sw%zu = %s", i ? ", " : "", i, council_.experts()[i].name.c_str());
  }
  // The leader column fits the longest name, up to 28 characters.
  int name_width = 6;
  for (const council::Expert& expert : council_.experts()) {
    name_width = std::max(name_width, static_cast<int>(std::min<size_t>(expert.name.size(), 28)));
  }
  std::printf("\n%5s  %-8s  %-*s", "step", "token", name_width, "led by");
  for (size_t i = 0; i < council_.size(); ++i) std::printf("  %4s%zu", "w", i);
  std::printf("  %-9s  %s\n", "consensus", "each expert's own choice");
  for (size_t index = 0; index < std::min(accepted, rows_.size()); ++index) {
    const Row& row = rows_[index];
    const std::string leader = council_.experts()[row.leader].name.substr(0, 28);
    std::printf("%5zu  %s  %-*s", index, shown(tokenizer_, row.chosen, 8).c_str(), name_width,
                leader.c_str());
    for (float weight : row.weights) std::printf("  %5.3f", weight);
    const auto agreeing = static_cast<size_t>(row.consensus * row.picks.size() + 0.5f);
    std::printf("  %4zu/%-4zu ", agreeing, row.picks.size());
    for (uint32_t pick : row.picks) std::printf(" %s", shown(tokenizer_, pick, 0).c_str());
    std::printf("\n");
  }
}

std::string CouncilReport::summary(size_t accepted) const {
  const nlohmann::ordered_json s = summary_json(accepted);
  const size_t steps = s["steps"], split = s["split_steps"];
  char line[160];
  std::snprintf(line, sizeof line,
                "experts split on %zu of %zu steps (%.0f%%), mean consensus %.2f", split, steps,
                steps ? 100.0 * static_cast<double>(split) / static_cast<double>(steps) : 0.0,
                s["mean_consensus"].get<double>());
  std::string text = line;
  text += "; led: ";
  for (size_t i = 0; i < council_.size(); ++i) {
    if (i > 0) text += ", ";
    text += council_.experts()[i].name;
    text += " ×" + std::to_string(s["led"][i].get<size_t>());
  }
  return text;
}

nlohmann::ordered_json CouncilReport::summary_json(size_t accepted) const {
  const size_t steps = std::min(accepted, rows_.size());
  size_t split = 0;
  double consensus = 0;
  std::vector<size_t> led(council_.size(), 0);
  for (size_t index = 0; index < steps; ++index) {
    const Row& row = rows_[index];
    split += std::any_of(row.picks.begin(), row.picks.end(),
                         [&](uint32_t pick) { return pick != row.picks.front(); });
    consensus += row.consensus;
    ++led[row.leader];
  }
  return {{"steps", steps},
          {"split_steps", split},
          {"mean_consensus", steps ? consensus / static_cast<double>(steps) : 0.0},
          {"led", led}};
}

}  // namespace wgpt::cli
