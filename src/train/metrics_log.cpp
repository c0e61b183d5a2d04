#include "train/metrics_log.h"

#include <sstream>

#include "wgpt/io.h"

namespace wgpt::train {
namespace {

// A line per step: a million steps are about 150 MB.
constexpr uint64_t kMaxLogBytes = uint64_t{1} << 30;

}  // namespace

MetricsLog::MetricsLog(std::filesystem::path path, std::optional<size_t> resume_step)
    : path_(std::move(path)) {
  std::vector<nlohmann::json> kept;
  std::error_code error;
  if (resume_step && std::filesystem::exists(path_, error)) {
    std::istringstream in(io::read_file(path_, kMaxLogBytes, "a metrics log"));
    for (std::string text; std::getline(in, text);) {
      nlohmann::json line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (line.is_object() && line.contains("step") && line["step"].is_number_unsigned() &&
          line["step"].get<size_t>() <= *resume_step) {
        kept.push_back(std::move(line));
      }
    }
  }
  std::string text;
  for (const nlohmann::json& line : kept) {
    text += line.dump() + '\n';
    remember(line);
  }
  io::write_file_atomically(path_, text);
}

void MetricsLog::append(const nlohmann::json& line) {
  io::append_to_file(path_, line.dump() + '\n');
  remember(line);
}

void MetricsLog::remember(const nlohmann::json& line) {
  const size_t step = line["step"].get<size_t>();
  if (line.contains("loss")) train_.push_back({step, line["loss"].get<double>()});
  if (line.contains("val_loss")) validation_.push_back({step, line["val_loss"].get<double>()});
}

}  // namespace wgpt::train
