#include "train/metrics_log.h"

#include <fstream>
#include <sstream>

#include "wgpt/error.h"

namespace wgpt::train {

MetricsLog::MetricsLog(std::filesystem::path path, std::optional<size_t> resume_step)
    : path_(std::move(path)) {
  std::vector<nlohmann::json> kept;
  if (resume_step) {
    std::ifstream in(path_);
    for (std::string text; std::getline(in, text);) {
      nlohmann::json line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (line.is_object() && line.contains("step") && line["step"].is_number_unsigned() &&
          line["step"].get<size_t>() <= *resume_step) {
        kept.push_back(std::move(line));
      }
    }
  }
  std::ofstream out(path_, std::ios::trunc);
  if (!out) throw Error("cannot write " + path_.string());
  for (const nlohmann::json& line : kept) {
    out << line.dump() << '\n';
    remember(line);
  }
}

void MetricsLog::append(const nlohmann::json& line) {
  std::ofstream out(path_, std::ios::app);
  out << line.dump() << '\n';
  if (!out) throw Error("cannot append to " + path_.string());
  remember(line);
}

void MetricsLog::remember(const nlohmann::json& line) {
  const size_t step = line["step"].get<size_t>();
  if (line.contains("loss")) train_.push_back({step, line["loss"].get<double>()});
  if (line.contains("val_loss")) validation_.push_back({step, line["val_loss"].get<double>()});
}

}  // namespace wgpt::train
