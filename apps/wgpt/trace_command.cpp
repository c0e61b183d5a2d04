// `wgpt trace`: generate with the probe on, writing every step's attention (and on request the
// per-block detail) as NDJSON or safetensors, and/or a self-contained HTML page.
#include <chrono>
#include <cstdio>

#include "commands.h"
#include "model_options.h"
#include "option_checks.h"
#include "prompt_options.h"
#include "sampling_options.h"
#include "standard_output.h"
#include "text_output.h"
#include "trace_sinks.h"

namespace wgpt::cli {
namespace {

struct TraceCommand {
  ModelOptions model;
  PromptOptions prompt;
  size_t tokens = 32;
  size_t detail_layers = 0;
  size_t top = 10;
  std::string format = "ndjson";
  std::string output;
  std::string html;
  generate::SamplingOptions sampling;
  bool ignore_end_of_text = false;
};

// The probe options the model allows, with a note for each request it cannot meet.
model::ProbeOptions clamped_probe(const TraceCommand& command, const model::Config& config) {
  model::ProbeOptions probe{command.detail_layers, command.top};
  if (probe.detail_layers > config.n_layer) {
    std::fprintf(stderr,
                 "note: --detail-layers %zu is more than the model's %zu layers: using %zu\n",
                 probe.detail_layers, config.n_layer, config.n_layer);
    probe.detail_layers = config.n_layer;
  }
  if (probe.top_n > config.vocab_size) {
    std::fprintf(stderr, "note: --top %zu is more than the vocabulary of %zu: using %zu\n",
                 probe.top_n, config.vocab_size, config.vocab_size);
    probe.top_n = config.vocab_size;
  }
  return probe;
}

// The model directory's name, for the page's header ("models/gpt2/" → "gpt2").
std::string model_name(const std::string& model_dir) {
  std::filesystem::path path(model_dir);
  if (!path.has_filename()) path = path.parent_path();
  return path.filename().string();
}

void print_timings(const generate::GenerateResult& result, double writing_ms) {
  const auto& t = result.timings;
  auto per_token = [](double ms, size_t n) { return n ? ms / static_cast<double>(n) : 0.0; };
  std::fprintf(stderr, "prompt:     %zu tokens, %.2f ms/token (probe on)\n", t.prompt_tokens,
               per_token(t.prompt_ms, t.prompt_tokens));
  // The trace's own writing happens inside the generation loop: report it apart.
  const double generating_ms = t.generate_ms - writing_ms;
  std::fprintf(stderr,
               "generation: %zu tokens, %.2f ms/token with the probe on (stop: %s); writing the "
               "trace: %.2f ms/token more\n",
               t.generated_tokens, per_token(generating_ms, t.generated_tokens),
               generate::to_string(result.stop), per_token(writing_ms, t.generated_tokens));
}

void run(const TraceCommand& command) {
  if (command.output.empty() && command.html.empty()) {
    throw Error("nowhere to write the trace: give -o FILE and/or --html PAGE");
  }
  if (is_standard_output(command.output) && is_standard_output(command.html)) {
    throw Error("-o - and --html - both name standard output: send one of them to a file");
  }
  const std::string prompt = read_prompt(command.prompt);
  if (prompt.empty()) {
    throw Error(
        "the prompt is empty: give some text with -p TEXT, -p - (standard input) or -f FILE");
  }
  LoadedModel loaded = load_model(command.model);
  const model::Config& config = loaded.model.config();
  model::validate(command.sampling, config);
  TraceRun trace_run{config,
                     *loaded.tokenizer,
                     model_name(command.model.model_dir),
                     prompt,
                     loaded.tokenizer->encode(prompt),
                     clamped_probe(command, config),
                     command.sampling};
  std::vector<std::unique_ptr<TraceSink>> sinks;
  if (!command.output.empty()) {
    sinks.push_back(command.format == "ndjson" ? ndjson_sink(command.output, trace_run)
                                               : safetensors_sink(command.output, trace_run));
  }
  if (!command.html.empty()) sinks.push_back(page_sink(command.html, trace_run));

  generate::GenerateOptions options;
  options.max_new_tokens = command.tokens;
  options.sampling = command.sampling;
  options.stop_at_end_of_text = !command.ignore_end_of_text;
  double writing_ms = 0;
  auto on_trace = [&](size_t step, const model::StepTrace& trace, uint32_t token) {
    const auto start = std::chrono::steady_clock::now();
    for (auto& sink : sinks) sink->step(step, trace, token);
    writing_ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return true;
  };
  // The text as it comes is the progress: on standard error when the trace takes standard output
  // (where, as every write to standard output, it is checked).
  const bool progress_on_stderr =
      is_standard_output(command.output) || is_standard_output(command.html);
  auto show = [progress_on_stderr](std::string_view text) {
    if (progress_on_stderr) {
      std::fwrite(text.data(), 1, text.size(), stderr);
    } else {
      write_stdout(text);
    }
  };
  show(prompt);
  auto on_text = [&show](std::string_view text) {
    show(text);
    return true;
  };
  const generate::GenerateResult result =
      generate::generate_traced(loaded.model, *loaded.tokenizer, trace_run.prompt_ids, options,
                                trace_run.probe, on_trace, on_text);
  show("\n");
  for (auto& sink : sinks) std::fprintf(stderr, "%s\n", sink->finish(result).c_str());
  print_timings(result, writing_ms);
}

}  // namespace

void add_trace_command(CLI::App& app) {
  auto command = std::make_shared<TraceCommand>();
  CLI::App* sub = app.add_subcommand(
      "trace", "Generate with the probe on: every step's attention, detail and top tokens");
  add_model_options(*sub, command->model);
  add_prompt_options(*sub, command->prompt);
  sub->add_option("-n,--tokens", command->tokens, "How many tokens to generate")
      ->check(whole_number(0, kMaxGeneratedTokens))
      ->capture_default_str();
  sub->add_option("--detail-layers", command->detail_layers,
                  "Capture the per-block detail of the first D blocks (docs/probe.md)")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--top", command->top, "Report the N most likely next tokens per step")
      ->check(whole_number(0, UINT32_MAX))
      ->capture_default_str();
  sub->add_option("--format", command->format, "Format of -o: ndjson or safetensors")
      ->check(CLI::IsMember({"ndjson", "safetensors"}))
      ->capture_default_str();
  sub->add_option("-o,--output", command->output,
                  "The trace file to write (- for standard output)");
  sub->add_option("--html", command->html,
                  "A self-contained HTML page of the trace to write (- for standard output)");
  add_sampling_options(*sub, command->sampling, command->ignore_end_of_text);
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
