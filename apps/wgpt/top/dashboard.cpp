#include "top/dashboard.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "top/screen.h"
#include "top/system.h"

namespace wgpt::top {
namespace {

constexpr int kFrameMs = 66;    // about 15 redraws a second
constexpr int kSystemMs = 250;  // the machine is read 4 times a second
constexpr int kCtrlC = 3, kCtrlL = 12, kEscape = 27, kTab = '\t';

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string size_text(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return format("%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return format("%.1f MiB", bytes / (1024.0 * 1024));
  return format("%.0f KiB", bytes / 1024.0);
}

std::string count_text(double count) {
  if (count >= 1e9) return format("%.2f B", count / 1e9);
  if (count >= 1e6) return format("%.2f M", count / 1e6);
  return format("%.0f", count);
}

std::string shape_text(const io::Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

class Dashboard {
 public:
  explicit Dashboard(const DashboardOptions& options) : options_(options) {
    backend_ = options.request.backend;
  }
  void run();

 private:
  void scan();
  bool handle(int key);
  void handle_special(int key);
  void draw();
  void draw_models(const Area& area);
  void draw_details(const Area& area);
  void draw_tensors(const Area& area);
  void draw_run(const Area& area, const RunState& state);
  void draw_system(const Area& area);
  void draw_output(const Area& area, const RunState& state);
  void draw_status(const RunState& state);
  void start_run();

  const DashboardOptions& options_;
  Screen screen_;
  SystemMonitor monitor_;
  Runner runner_;
  std::vector<ScannedModel> models_;
  size_t selected_ = 0;
  bool show_tensors_ = false;
  size_t tensor_scroll_ = 0;
  std::string backend_;
  std::string notice_;  // a one-off message in the status line
  std::optional<GpuReading> gpu_;
  HostReading host_;
  std::chrono::steady_clock::time_point last_sample_;
};

void Dashboard::scan() {
  screen_.clear();
  screen_.text({0, 0, 1, screen_.columns()}, 0, 0, "wgpt top: scanning for models…");
  screen_.show();
  models_ = top::scan(options_.roots);
}

void Dashboard::run() {
  scan();
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_sample_ >= std::chrono::milliseconds(kSystemMs)) {
      gpu_ = monitor_.gpu();
      host_ = monitor_.host();
      last_sample_ = now;
    }
    draw();
    const int key = screen_.key(kFrameMs);
    if (key != Keys::none && !handle(key)) return;
  }
}

void Dashboard::start_run() {
  if (models_.empty()) return;
  const ScannedModel& model = models_[selected_];
  if (!model.runnable()) {
    notice_ = model.name + " is not runnable: " + model.problem;
    return;
  }
  RunRequest request = options_.request;
  request.backend = backend_;
  if (!runner_.start(model, request)) notice_ = "a run is in progress: Esc cancels it";
}

bool Dashboard::handle(int key) {
  notice_.clear();
  switch (key) {
    case 'q':
    case kCtrlC:
      return false;
    case 'k':
      if (selected_ > 0) {
        --selected_;
        tensor_scroll_ = 0;
      }
      break;
    case 'j':
      if (selected_ + 1 < models_.size()) {
        ++selected_;
        tensor_scroll_ = 0;
      }
      break;
    case '\n':
    case '\r':
      start_run();
      break;
      tensor_scroll_ = tensor_scroll_ > 10 ? tensor_scroll_ - 10 : 0;
      break;
    case kTab:
      show_tensors_ = !show_tensors_;
      break;
    case 'b':
      if (runner_.busy()) {
        notice_ = "the backend changes between runs";
      } else {
        backend_ = backend_ == "gpu" ? "cpu" : "gpu";
      }
      break;
    case kEscape:
      runner_.cancel();
      break;
    case kCtrlL:
      screen_.repaint();
      break;
    default:
      handle_special(key);
      break;
  }
  return true;
}

void Dashboard::handle_special(int key) {
  if (key == Keys::up) {
    handle('k');
  } else if (key == Keys::down) {
    handle('j');
  } else if (key == Keys::page_down) {
    tensor_scroll_ += 10;
  } else if (key == Keys::page_up) {
    tensor_scroll_ = tensor_scroll_ > 10 ? tensor_scroll_ - 10 : 0;
  } else if (key == Keys::enter) {
    start_run();
  }
}

void Dashboard::draw() {
  screen_.clear();
  const RunState state = runner_.state();
  const int lines = screen_.lines() - 1, columns = screen_.columns();
  if (columns >= 80) {
    const int left = std::max(30, columns * 2 / 5);
    const int list = std::clamp(static_cast<int>(models_.size()) + 2, 4, lines / 2);
    draw_models({0, 0, list, left});
    if (show_tensors_) {
      draw_tensors({list, 0, lines - list, left});
    } else {
      draw_details({list, 0, lines - list, left});
    }
    const int right = columns - left;
    draw_run({0, left, 9, right}, state);
    draw_system({9, left, 6, right});
    draw_output({15, left, lines - 15, right}, state);
  } else {  // one column, the run first
    draw_run({0, 0, 9, columns}, state);
    draw_models({9, 0, std::clamp(static_cast<int>(models_.size()) + 2, 3, 6), columns});
    draw_system({15, 0, 6, columns});
    draw_output({21, 0, lines - 21, columns}, state);
  }
  draw_status(state);
  screen_.show();
}

void Dashboard::draw_models(const Area& area) {
  const Area inside = screen_.frame(area, "models (" + std::to_string(models_.size()) + ")", true);
  if (models_.empty()) {
    screen_.text(inside, 0, 1, "no .safetensors or .fzm files found", Tone::warn);
    return;
  }
  // Keep the selection in view.
  const size_t first = selected_ >= static_cast<size_t>(inside.height)
                           ? selected_ - static_cast<size_t>(inside.height) + 1
                           : 0;
  for (int row = 0; row < inside.height && first + row < models_.size(); ++row) {
    const ScannedModel& model = models_[first + row];
    const bool chosen = first + row == selected_;
    const std::string size = size_text(static_cast<double>(model.bytes));
    std::string line = std::string(screen_.mark(model.runnable())) + " " + model.name;
    screen_.text(inside, row, 0, line, model.runnable() ? Tone::normal : Tone::bad, chosen);
    screen_.text(inside, row, std::max(0, inside.width - static_cast<int>(size.size())), size,
                 Tone::dim, chosen);
  }
}

void Dashboard::draw_details(const Area& area) {
  const Area inside = screen_.frame(area, "details  [tab] tensors");
  if (models_.empty()) return;
  const ScannedModel& model = models_[selected_];
  int row = 0;
  auto line = [&](const std::string& label, const std::string& value, Tone tone = Tone::normal) {
    screen_.text(inside, row, 0, label, Tone::dim);
    for (const std::string& piece :
         wrap(value, static_cast<size_t>(std::max(1, inside.width - 11)))) {
      screen_.text(inside, row++, 11, piece, tone);
    }
  };
  line("file", model.weights.string());
  line("format", model.format + ", " + size_text(static_cast<double>(model.bytes)) + ", " +
                     std::to_string(model.tensors.size()) + " tensors");
  line("weights", count_text(static_cast<double>(model.parameters)) + " values");
  if (model.config) {
    const model::Config& c = *model.config;
    line("shape", std::to_string(c.n_layer) + " layers, " + std::to_string(c.n_head) +
                      " heads, width " + std::to_string(c.n_embd));
    line("context",
         std::to_string(c.n_ctx) + " positions, vocabulary " + std::to_string(c.vocab_size));
  }
  const tokenizer::TokenizerFiles& files = model.tokenizer_files;
  line("sidecars", "config.json " + std::string(screen_.mark(!model.config_path.empty())) +
                       "  vocab.json " + std::string(screen_.mark(!files.vocab_json.empty())) +
                       "  merges.txt " + std::string(screen_.mark(!files.merges_txt.empty())) +
                       "  tokenizer.json " +
                       std::string(screen_.mark(!files.tokenizer_json.empty())));
  if (!model.tokenizer_kind.empty()) line("tokenizer", model.tokenizer_kind);
  if (model.runnable()) {
    line("verdict", "runnable: [enter] runs it", Tone::good);
  } else {
    line("verdict", "not runnable: " + model.problem, Tone::bad);
  }
}

void Dashboard::draw_tensors(const Area& area) {
  const Area inside = screen_.frame(area, "tensors  [pgup/pgdn] scroll  [tab] details");
  if (models_.empty()) return;
  const auto& tensors = models_[selected_].tensors;
  tensor_scroll_ = std::min(tensor_scroll_, tensors.empty() ? 0 : tensors.size() - 1);
  for (int row = 0; row < inside.height && tensor_scroll_ + row < tensors.size(); ++row) {
    const io::TensorInfo& tensor = tensors[tensor_scroll_ + row];
    const std::string detail =
        shape_text(tensor.shape) + " " + std::string(io::dtype_name(tensor.dtype));
    screen_.text(inside, row, 0, tensor.name);
    screen_.text(inside, row, std::max(0, inside.width - static_cast<int>(detail.size())), detail,
                 Tone::dim);
  }
}

void Dashboard::draw_run(const Area& area, const RunState& state) {
  const Area inside = screen_.frame(area, "run");
  const std::string backend = backend_ == "gpu" ? "gpu" : "cpu (the reference)";
  screen_.text(inside, 0, 0, "backend", Tone::dim);
  screen_.text(inside, 0, 11, backend + (state.adapter.empty() ? "" : ": " + state.adapter));
  screen_.text(inside, 1, 0, "model", Tone::dim);
  screen_.text(inside, 1, 11, state.model.empty() ? "-" : state.model);
  screen_.text(inside, 2, 0, "load", Tone::dim);
  screen_.text(inside, 2, 11, state.load_ms > 0 ? format("%.0f ms", state.load_ms) : "-");
  screen_.text(inside, 3, 0, "first tok", Tone::dim);
  screen_.text(inside, 3, 11,
               state.token_ms.empty() ? "-" : format("%.1f ms", state.first_token_ms));
  screen_.text(inside, 4, 0, "tok/s", Tone::dim);
  const double instant = state.instant_rate(), mean = state.running_mean_rate();
  screen_.text(inside, 4, 11,
               (instant > 0 ? format("%.1f", instant) : std::string("-")) + " instant   " +
                   (mean > 0 ? format("%.1f", mean) : std::string("-")) + " mean",
               Tone::good);
  screen_.text(inside, 5, 0, "tokens", Tone::dim);
  const size_t tokens = state.phase == Phase::done ? state.tokens : state.token_ms.size();
  screen_.text(inside, 5, 11, std::to_string(tokens));
  screen_.text(inside, 6, 0, screen_.sparkline(state.rates(), inside.width), Tone::good);
}

void Dashboard::draw_system(const Area& area) {
  const Area inside = screen_.frame(area, "machine");
  const int gauge = 12;
  if (gpu_) {
    std::string line = (gpu_->name.empty() ? "GPU 0" : gpu_->name) + ": ";
    if (gpu_->memory_used && gpu_->memory_total) {
      line += size_text(static_cast<double>(*gpu_->memory_used)) + " of " +
              size_text(static_cast<double>(*gpu_->memory_total)) + " " +
              screen_.gauge(static_cast<double>(*gpu_->memory_used) /
                                static_cast<double>(std::max<uint64_t>(1, *gpu_->memory_total)),
                            gauge);
    } else {
      line += "memory n/a";
    }
    screen_.text(inside, 0, 0, line);
    std::string more =
        "busy " + (gpu_->utilisation ? std::to_string(*gpu_->utilisation) + "%" : "n/a");
    if (gpu_->utilisation) more += " " + screen_.gauge(*gpu_->utilisation / 100.0, gauge);
    more +=
        "  " + (gpu_->temperature ? std::to_string(*gpu_->temperature) + " °C" : "temperature n/a");
    more += "  " + (gpu_->power ? format("%.0f W", *gpu_->power) : "power n/a");
    screen_.text(inside, 1, 0, more);
  } else {
    screen_.text(inside, 0, 0, "GPU: n/a, " + monitor_.gpu_unavailable(), Tone::dim);
    screen_.text(inside, 1, 0, "(memory, busy, temperature and power come from NVML)", Tone::dim);
  }
  std::string host = "host CPU " + (host_.cpu ? format("%.0f%%", *host_.cpu) : "n/a");
  if (host_.cpu) host += " " + screen_.gauge(*host_.cpu / 100.0, gauge);
  if (host_.memory_used && host_.memory_total) {
    host += "  RAM " + size_text(static_cast<double>(*host_.memory_used)) + " of " +
            size_text(static_cast<double>(*host_.memory_total)) + " " +
            screen_.gauge(static_cast<double>(*host_.memory_used) /
                              static_cast<double>(std::max<uint64_t>(1, *host_.memory_total)),
                          gauge);
  } else {
    host += "  RAM n/a";
  }
  screen_.text(inside, 2, 0, host);
  if (host_.process_resident) {
    screen_.text(inside, 3, 0,
                 "wgpt " + size_text(static_cast<double>(*host_.process_resident)) + " resident",
                 Tone::dim);
  }
}

void Dashboard::draw_output(const Area& area, const RunState& state) {
  const Area inside = screen_.frame(area, "output");
  if (inside.height <= 0) return;
  const std::vector<std::string> lines = wrap(state.text, static_cast<size_t>(inside.width));
  const size_t first = lines.size() > static_cast<size_t>(inside.height)
                           ? lines.size() - static_cast<size_t>(inside.height)
                           : 0;
  for (size_t i = first; i < lines.size(); ++i) {
    screen_.text(inside, static_cast<int>(i - first), 0, lines[i]);
  }
}

void Dashboard::draw_status(const RunState& state) {
  const Area line{screen_.lines() - 1, 0, 1, screen_.columns()};
  std::string phase = to_string(state.phase);
  Tone tone = Tone::normal;
  if (!notice_.empty()) {
    phase = notice_;
    tone = Tone::warn;
  } else if (state.phase == Phase::done) {
    phase = "done: " + state.message;
    tone = Tone::good;
  } else if (state.phase == Phase::failed) {
    phase = "failed: " + state.message;
    tone = Tone::bad;
  } else if (state.phase == Phase::generating) {
    phase =
        "generating on " + state.adapter + " (loaded in " + format("%.0f ms", state.load_ms) + ")";
  }
  const std::string keys =
      std::string(screen_.unicode() ? "  [↑↓/jk] move" : "  [up/down/jk] move") +
      " [enter] run [esc] cancel [tab] details [b] backend: " + backend_ + " [q] quit";
  screen_.text(line, 0, 0, phase + keys, tone);
}

}  // namespace

void run_dashboard(const DashboardOptions& options) {
  Dashboard dashboard(options);
  dashboard.run();
}

}  // namespace wgpt::top
