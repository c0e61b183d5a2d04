#pragma once
// Where `wgpt trace` writes a generation's trace — NDJSON, safetensors, a self-contained HTML
// page. Each sink takes the steps as they come and has written its file when finish() returns.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "token_json.h"
#include "wgpt/generate.h"
#include "wgpt/io.h"

namespace wgpt::cli {

// What every sink knows about the run.
struct TraceRun {
  const model::Config& config;
  const tokenizer::Tokenizer& tokenizer;
  std::string model_name;
  std::string prompt;
  std::vector<uint32_t> prompt_ids;
  model::ProbeOptions probe;  // clamped to the model
  generate::SamplingOptions sampling;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  // One step: what it captured and the token sampled from its logits.
  virtual void step(size_t step, const model::StepTrace& trace, uint32_t token) = 0;
  // The run is over: writes what is left and says what was written.
  virtual std::string finish(const generate::GenerateResult& result) = 0;
};

// Each creates its io::OutputFile (a temporary beside `path`) at once, so that an unwritable path
// fails before anything is generated; `path` itself is replaced only when finish() commits, so a
// run that fails on the way leaves an existing file as it was.
std::unique_ptr<TraceSink> ndjson_sink(const std::filesystem::path& path, const TraceRun& run);
std::unique_ptr<TraceSink> safetensors_sink(const std::filesystem::path& path, const TraceRun& run);
std::unique_ptr<TraceSink> page_sink(const std::filesystem::path& path, const TraceRun& run);

}  // namespace wgpt::cli
