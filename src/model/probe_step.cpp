// One probed step: the forward pass records its captures, then every capture and the logits come
// back in one batched readback — on the GPU one submit (the step's dispatches and the copies share
// it) and one fence wait, however many tensors the probe reads.
#include <algorithm>
#include <memory>
#include <optional>

#include "wgpt/probe.h"

namespace wgpt::model {
namespace {

// A step recorded but not yet read back: the captures to read, in order, then the logits.
struct RecordedStep {
  std::vector<std::string> names;
  std::vector<Tensor> tensors;  // one per name, then the logits [1, vocab]
  size_t q_len = 0, kv_len = 0, n_head = 0, top_n = 0;
};

RecordedStep record_step(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                         const ProbeOptions& options) {
  const Config& config = model.config();
  const ForwardOptions forward_options{
      .all_logits = false,
      .capture_attention = true,
      .detail_layers = std::min(options.detail_layers, config.n_layer)};
  ForwardOutput out = model.forward(ids, cache, forward_options);
  RecordedStep step;
  step.q_len = ids.size();
  step.kv_len = cache.length();
  step.n_head = config.n_head;
  step.top_n = std::min(options.top_n, config.vocab_size);
  for (size_t layer = 0; layer < out.attention.size(); ++layer) {
    step.names.push_back(hook_name(layer, "attn.hook_pattern"));
    step.tensors.push_back(out.attention[layer]);
  }
  for (NamedTensor& capture : out.detail) {
    step.names.push_back(std::move(capture.name));
    step.tensors.push_back(std::move(capture.tensor));
  }
  step.tensors.push_back(out.logits);
  return step;
}

StepTrace assemble(const RecordedStep& step, std::vector<std::vector<float>> values) {
  StepTrace trace;
  trace.q_len = step.q_len;
  trace.kv_len = step.kv_len;
  trace.n_head = step.n_head;
  for (size_t i = 0; i < step.names.size(); ++i) {
    trace.captures.push_back({step.names[i], step.tensors[i].shape(), std::move(values[i])});
  }
  trace.logits = std::move(values.back());
  trace.top = top_tokens(trace.logits, step.top_n);
  return trace;
}

}  // namespace

StepTrace trace_step(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                     const ProbeOptions& options) {
  std::optional<gpu::Scope> scope;  // the step and its readback copies: one submit
  if (model.on_gpu()) scope.emplace(*model.context());
  const RecordedStep step = record_step(model, ids, cache, options);
  return assemble(step, read_floats(step.tensors));
}

void trace_step_async(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                      const ProbeOptions& options, std::function<void(Result<StepTrace>)> done) {
  auto step = std::make_shared<RecordedStep>();
  record_and_read_async(
      model.context(),
      [&] {
        *step = record_step(model, ids, cache, options);
        return step->tensors;
      },
      [step, done](Result<std::vector<std::vector<float>>> values) {
        if (!values.ok()) return done(values.error());
        done(assemble(*step, std::move(values.value())));
      });
}

}  // namespace wgpt::model
