// One probed step: the forward pass records its captures, then every capture and the logits come
// back in one batched readback — on the GPU one submit (the step's dispatches and the copies share
// it) and one fence wait, however many tensors the probe reads.
#include <algorithm>
#include <cstring>
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

std::vector<std::vector<float>> host_values(const std::vector<Tensor>& tensors) {
  std::vector<std::vector<float>> values;
  for (const Tensor& tensor : tensors) values.push_back(tensor.to_floats());
  return values;
}

std::vector<gpu::BufferRange> regions_of(const std::vector<Tensor>& tensors) {
  std::vector<gpu::BufferRange> regions;
  for (const Tensor& tensor : tensors) {
    regions.emplace_back(tensor.buffer(), tensor.offset() * sizeof(float),
                         tensor.numel() * sizeof(float));
  }
  return regions;
}

std::vector<std::vector<float>> floats_of(const std::vector<std::vector<std::byte>>& bytes) {
  std::vector<std::vector<float>> values;
  for (const std::vector<std::byte>& region : bytes) {
    std::vector<float> floats(region.size() / sizeof(float));
    std::memcpy(floats.data(), region.data(), floats.size() * sizeof(float));
    values.push_back(std::move(floats));
  }
  return values;
}

}  // namespace

StepTrace trace_step(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                     const ProbeOptions& options) {
  if (!model.on_gpu()) {
    const RecordedStep step = record_step(model, ids, cache, options);
    return assemble(step, host_values(step.tensors));
  }
  gpu::Scope scope(*model.context());  // the step and its readback copies: one submit
  const RecordedStep step = record_step(model, ids, cache, options);
  return assemble(step, floats_of(model.context()->readback_many(regions_of(step.tensors))));
}

void trace_step_async(const Model& model, std::span<const uint32_t> ids, KvCache& cache,
                      const ProbeOptions& options, std::function<void(Result<StepTrace>)> done) {
  std::optional<Result<StepTrace>> ready;  // a CPU step's trace, or an error; delivered below
  {
    std::optional<gpu::Scope> scope;  // the step and its readback copies: one submit
    if (model.on_gpu()) scope.emplace(*model.context());
    try {
      auto step = std::make_shared<const RecordedStep>(record_step(model, ids, cache, options));
      if (model.on_gpu()) {
        // The callback holds the step: its buffers stay out of the pool until they are read.
        model.context()->readback_many_async(
            regions_of(step->tensors),
            [step, done](Result<std::vector<std::vector<std::byte>>> bytes) {
              if (!bytes.ok()) return done(bytes.error());
              done(assemble(*step, floats_of(bytes.value())));
            });
      } else {
        ready.emplace(assemble(*step, host_values(step->tensors)));
      }
    } catch (const Error& error) {
      ready.emplace(error);
    }
  }
  if (ready) done(std::move(*ready));
}

}  // namespace wgpt::model
