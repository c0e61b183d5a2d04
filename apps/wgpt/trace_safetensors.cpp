// `wgpt trace --format safetensors`: every captured tensor of every step as step.S.<name>.
#include "text_output.h"
#include "trace_sinks.h"
#include "wgpt/io.h"

namespace wgpt::cli {
namespace {

io::Shape io_shape(const Shape& shape) { return io::Shape(shape.begin(), shape.end()); }

// The -o path, which must name a file: safetensors is binary.
const std::filesystem::path& file_path(const std::filesystem::path& path) {
  require_file(path, "-o", "safetensors");
  return path;
}

class SafetensorsSink final : public TraceSink {
 public:
  SafetensorsSink(const std::filesystem::path& path, const TraceRun& run)
      : run_(run), out_(file_path(path)) {}

  void step(size_t step, const model::StepTrace& trace, uint32_t token) override {
    const std::string prefix = "step." + std::to_string(step) + ".";
    for (const model::Capture& capture : trace.captures) {
      tensors_.push_back(io::TensorData::from_floats(prefix + capture.name, io_shape(capture.shape),
                                                     capture.values));
    }
    tensors_.push_back(io::TensorData::from_floats(
        prefix + "logits", {static_cast<int64_t>(trace.logits.size())}, trace.logits));
    tensors_.push_back(io::TensorData::from_ints(prefix + "token", {1}, {token}));
    std::vector<int64_t> top_ids;
    std::vector<float> top_probabilities;
    for (const model::TopToken& candidate : trace.top) {
      top_ids.push_back(candidate.id);
      top_probabilities.push_back(candidate.probability);
    }
    const int64_t n = static_cast<int64_t>(trace.top.size());
    tensors_.push_back(io::TensorData::from_ints(prefix + "top_ids", {n}, std::move(top_ids)));
    tensors_.push_back(
        io::TensorData::from_floats(prefix + "top_probs", {n}, std::move(top_probabilities)));
    ++steps_;
  }

  std::string finish(const generate::GenerateResult&) override {
    nlohmann::ordered_json ids = run_.prompt_ids;
    const io::Metadata metadata = {{"prompt", run_.prompt},
                                   {"prompt_ids", ids.dump()},
                                   {"model", run_.model_name},
                                   {"detail_layers", std::to_string(run_.probe.detail_layers)},
                                   {"top_n", std::to_string(run_.probe.top_n)}};
    io::write_safetensors(out_, tensors_, metadata);
    out_.commit();
    return "wrote " + std::to_string(tensors_.size()) + " tensors of " + std::to_string(steps_) +
           " steps to " + out_.target().string();
  }

 private:
  const TraceRun& run_;
  io::OutputFile out_;
  std::vector<io::TensorData> tensors_;
  size_t steps_ = 0;
};

}  // namespace

std::unique_ptr<TraceSink> safetensors_sink(const std::filesystem::path& path,
                                            const TraceRun& run) {
  return std::make_unique<SafetensorsSink>(path, run);
}

}  // namespace wgpt::cli
