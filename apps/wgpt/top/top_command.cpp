// `wgpt top`: a terminal dashboard for a folder of models — what is there and whether it runs, a
// model's tensors, a live run with tokens per second, and the machine — or, with --list, the scan
// as lines for scripts.
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "commands.h"
#include "model_options.h"
#include "option_checks.h"
#include "sampling_options.h"
#include "top/dashboard.h"

namespace wgpt::cli {
namespace {

struct TopCommand {
  std::vector<std::string> paths = {"."};
  bool list = false;
  top::RunRequest request;
  bool ignore_end_of_text = false;
};

void list(const TopCommand& command) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::filesystem::path> roots(command.paths.begin(), command.paths.end());
  const auto models = top::scan(roots);
  for (const top::ScannedModel& model : models) std::printf("%s\n", top::list_line(model).c_str());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "%zu model(s) in %.2f s\n", models.size(), seconds);
}

void run(TopCommand command) {
  if (command.list) return list(command);
  if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
    throw Error(std::string(isatty(STDOUT_FILENO) ? "stdin" : "stdout") +
                " is not a terminal, so there is no dashboard to show: `wgpt top --list` prints "
                "the scan as text");
  }
  command.request.options.stop_at_end_of_text = !command.ignore_end_of_text;
  top::DashboardOptions options;
  options.roots.assign(command.paths.begin(), command.paths.end());
  options.request = command.request;
  top::run_dashboard(options);
}

}  // namespace

void add_top_command(CLI::App& app) {
  auto command = std::make_shared<TopCommand>();
  command->request.options.max_new_tokens = 120;
  command->request.options.sampling = {.temperature = 0.8f, .top_k = 40, .seed = 42};
  CLI::App* sub = app.add_subcommand(
      "top",
      "A terminal dashboard for folders of models: each checkpoint (.safetensors, .fzm; .gguf "
      "listed) read from its headers, runnable or why not, its tensors; run one and watch tok/s, "
      "time to first token, the GPU (NVML, where there is one) and the host. Keys: up/down or j/k "
      "move, Enter runs, Esc cancels, Tab shows tensors, b switches backend, Ctrl-L redraws, q "
      "quits");
  sub->add_option("--path", command->paths, "A folder (or file) to scan; repeatable")
      ->capture_default_str();
  sub->add_flag("--list", command->list,
                "Print the scan, one tab-separated line per model (name, bytes, parameters, "
                "tensors, layers/heads/width, context, tokenizer, verdict), and exit");
  add_backend_option(*sub, command->request.backend);
  sub->add_option("-p,--prompt", command->request.prompt,
                  "The prompt a run starts from (default: \"The \" where the vocabulary has it)");
  sub->add_option("-n,--tokens", command->request.options.max_new_tokens,
                  "How many tokens a run generates")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  add_sampling_options(*sub, command->request.options.sampling, command->ignore_end_of_text);
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
