#pragma once
// The progress display of `wgpt train` on stderr: a bar redrawn in place on a terminal, or a line
// every 2% of the run when stderr is a file or a pipe.

#include <cstddef>
#include <string>

#include "wgpt/train.h"

namespace wgpt::cli {

class TrainProgress {
 public:
  TrainProgress();
  void step(const train::StepReport& report);
  // A message on its own line (an evaluation, a checkpoint), the bar redrawn after it.
  void note(const std::string& message);

 private:
  bool terminal_;
  std::string last_bar_;
  double last_draw_s_ = -1;
};

// "3m12s", "1h05m", "42s".
std::string format_duration(double seconds);

}  // namespace wgpt::cli
