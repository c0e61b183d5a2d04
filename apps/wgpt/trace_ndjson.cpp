// `wgpt trace --format ndjson`: one JSON record per step, written as the step arrives.
#include "text_output.h"
#include "trace_sinks.h"

namespace wgpt::cli {
namespace {

class NdjsonSink final : public TraceSink {
 public:
  NdjsonSink(const std::filesystem::path& path, const TraceRun& run) : run_(run), out_(path) {}

  void step(size_t step, const model::StepTrace& trace, uint32_t token) override {
    nlohmann::ordered_json record = {{"step", step},
                                     {"token", token},
                                     {"text", run_.tokenizer.token_bytes(token)},
                                     {"q_len", trace.q_len},
                                     {"kv_len", trace.kv_len}};
    if (step == 0) {
      nlohmann::ordered_json prompt = nlohmann::ordered_json::array();
      for (uint32_t id : run_.prompt_ids) prompt.push_back(token_json(run_.tokenizer, id));
      record["prompt"] = std::move(prompt);
    }
    // attention[layer][head][key]: the newest position's row.
    nlohmann::ordered_json attention = nlohmann::ordered_json::array();
    for (size_t layer = 0; layer < run_.config.n_layer; ++layer) {
      nlohmann::ordered_json heads = nlohmann::ordered_json::array();
      for (size_t head = 0; head < trace.n_head; ++head) {
        const std::span<const float> row = trace.newest_attention(layer, head);
        heads.push_back(std::vector<float>(row.begin(), row.end()));
      }
      attention.push_back(std::move(heads));
    }
    record["attention"] = std::move(attention);
    record["top"] = top_json(run_.tokenizer, trace.top);
    out_.write(dump_json(record) + '\n');
    ++steps_;
  }

  std::string finish(const generate::GenerateResult&) override {
    out_.close();
    return "wrote " + std::to_string(steps_) + " step records to " + out_.name();
  }

 private:
  const TraceRun& run_;
  TextOutput out_;
  size_t steps_ = 0;
};

}  // namespace

std::unique_ptr<TraceSink> ndjson_sink(const std::filesystem::path& path, const TraceRun& run) {
  return std::make_unique<NdjsonSink>(path, run);
}

}  // namespace wgpt::cli
