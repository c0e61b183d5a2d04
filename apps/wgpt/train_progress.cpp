#include "train_progress.h"

#include <cmath>
#include <cstdio>

#include "host.h"

namespace wgpt::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr double kRedrawSeconds = 0.1;

std::string rate(double tokens_per_s) {
  char text[32];
  if (tokens_per_s >= 1e6) {
    std::snprintf(text, sizeof text, "%.2fM", tokens_per_s / 1e6);
  } else if (tokens_per_s >= 1e3) {
    std::snprintf(text, sizeof text, "%.1fk", tokens_per_s / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.0f", tokens_per_s);
  }
  return text;
}

}  // namespace

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[32];
  if (s >= 3600) {
    std::snprintf(text, sizeof text, "%ldh%02ldm", s / 3600, s / 60 % 60);
  } else if (s >= 60) {
    std::snprintf(text, sizeof text, "%ldm%02lds", s / 60, s % 60);
  } else {
    std::snprintf(text, sizeof text, "%lds", s);
  }
  return text;
}

TrainProgress::TrainProgress() : terminal_(is_terminal(stderr)) {}

void TrainProgress::step(const train::StepReport& r) {
  const double fraction = static_cast<double>(r.step) / static_cast<double>(r.total);
  const int filled = static_cast<int>(fraction * kBarWidth);
  char line[200];
  std::snprintf(line, sizeof line, "step %zu/%zu [%s%s] loss %.4f | %s tok/s | ETA %s", r.step,
                r.total, std::string(static_cast<size_t>(filled), '#').c_str(),
                std::string(static_cast<size_t>(kBarWidth - filled), '.').c_str(), r.loss,
                rate(r.tokens_per_s).c_str(), format_duration(r.eta_s).c_str());
  last_bar_ = line;
  if (terminal_) {
    if (r.step != r.total && r.elapsed_s - last_draw_s_ < kRedrawSeconds) return;
    last_draw_s_ = r.elapsed_s;
    std::fprintf(stderr, "\r\033[K%s", line);
    if (r.step == r.total) std::fprintf(stderr, "\n");
  } else {
    const size_t every = std::max<size_t>(1, r.total / 50);
    if (r.step % every == 0 || r.step == 1 || r.step == r.total) std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

void TrainProgress::note(const std::string& message) {
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s\n%s", message.c_str(), last_bar_.c_str());
  } else {
    std::fprintf(stderr, "%s\n", message.c_str());
  }
  std::fflush(stderr);
}

}  // namespace wgpt::cli
