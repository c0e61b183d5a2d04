// One step of the council: every expert's blocks, the router and both heads recorded together,
// then everything the step reports read back in one batch — on the GPU one submit and one fence
// wait for all experts.
#include <algorithm>
#include <memory>
#include <optional>

#include "wgpt/council.h"
#include "wgpt/ops.h"
#include "wgpt/sampling.h"

namespace wgpt::council {
namespace {

// What a recorded step reads back, in this order.
enum Readback { kHidden, kLogits, kEntropy, kWeights, kMerged, kMergedLogits, kCount };

std::vector<Tensor> record_step(const std::vector<Expert>& experts,
                                std::vector<model::KvCache>& caches, std::span<const uint32_t> ids,
                                float beta) {
  std::vector<Tensor> last_rows;
  for (size_t i = 0; i < experts.size(); ++i) {
    const Tensor hidden = experts[i].model.body(ids, caches[i]);
    last_rows.push_back(hidden.rows(hidden.dim(0) - 1, 1));
  }
  // The token tables are equal (the constructor checked), so the first expert's head serves all.
  const model::Model& head = experts.front().model;
  std::vector<Tensor> out(kCount);
  out[kHidden] = ops::concat_rows(last_rows);
  out[kLogits] = head.head(out[kHidden]);
  out[kEntropy] = ops::softmax_entropy(out[kLogits]);
  ops::Mixture mixture = ops::router_mix(out[kHidden], out[kEntropy], beta);
  out[kWeights] = mixture.weights;
  out[kMerged] = mixture.mixed;
  out[kMergedLogits] = head.head(mixture.mixed);
  return out;
}

std::vector<float> row(const std::vector<float>& values, size_t index, size_t width) {
  return std::vector<float>(values.begin() + static_cast<ptrdiff_t>(index * width),
                            values.begin() + static_cast<ptrdiff_t>((index + 1) * width));
}

// The step from its values; the token chosen from the merged logits with `sampling`, given the
// council's text so far (`context`, which ends with the ids this step ran).
Step assemble(std::vector<std::vector<float>> values, size_t experts,
              std::span<const uint32_t> context, const model::SamplingOptions& sampling,
              size_t top_n) {
  Step step;
  const size_t width = values[kMerged].size(), vocab = values[kMergedLogits].size();
  size_t agreeing = 0;
  for (size_t i = 0; i < experts; ++i) {
    ExpertStep expert;
    expert.weight = values[kWeights][i];
    expert.entropy = values[kEntropy][i];
    expert.hidden = row(values[kHidden], i, width);
    expert.logits = row(values[kLogits], i, vocab);
    expert.top = model::top_tokens(expert.logits, std::max<size_t>(top_n, 1));
    step.experts.push_back(std::move(expert));
  }
  step.hidden = std::move(values[kMerged]);
  step.logits = std::move(values[kMergedLogits]);
  step.top = model::top_tokens(step.logits, std::max<size_t>(top_n, 1));
  step.chosen = model::choose_token(step.logits, context, sampling).token;
  for (size_t i = 0; i < experts; ++i) {
    // The first maximum, as greedy decoding takes it (top_tokens breaks ties by lower id).
    agreeing += step.experts[i].top.front().id == step.chosen;
    if (step.experts[i].weight > step.experts[step.leader].weight) step.leader = i;
  }
  step.consensus = static_cast<float>(agreeing) / static_cast<float>(experts);
  return step;
}

}  // namespace

void Council::check_ids(std::span<const uint32_t> ids) const {
  // Checked before any expert runs, so that a bad step leaves every cache as it was.
  if (ids.empty()) throw Error("the council needs at least one token per step");
  if (length() + ids.size() > config_.n_ctx) {
    throw Error(std::to_string(length() + ids.size()) + " tokens exceed the council's context of " +
                std::to_string(config_.n_ctx));
  }
  for (uint32_t id : ids) {
    if (id >= config_.vocab_size) {
      throw Error("token id " + std::to_string(id) + " is outside the vocabulary of " +
                  std::to_string(config_.vocab_size));
    }
  }
}

Step Council::step(std::span<const uint32_t> ids, const model::SamplingOptions& sampling,
                   size_t top_n) {
  check_ids(ids);
  std::optional<gpu::Scope> scope;  // every expert, the router and the readback: one submit
  if (on_gpu()) scope.emplace(*experts_.front().model.context());
  const std::vector<Tensor> tensors = record_step(experts_, caches_, ids, beta_);
  text_.insert(text_.end(), ids.begin(), ids.end());
  return assemble(read_floats(tensors), experts_.size(), text_, sampling, top_n);
}

void Council::step_async(std::span<const uint32_t> ids, const model::SamplingOptions& sampling,
                         size_t top_n, std::function<void(Result<Step>)> done) {
  // The text as this step leaves it: a later step may be recorded before this one's values arrive.
  auto context = std::make_shared<std::vector<uint32_t>>();
  record_and_read_async(
      experts_.front().model.context(),
      [&] {
        check_ids(ids);
        std::vector<Tensor> tensors = record_step(experts_, caches_, ids, beta_);
        text_.insert(text_.end(), ids.begin(), ids.end());
        *context = text_;
        return tensors;
      },
      [experts = experts_.size(), context, sampling, top_n,
       done](Result<std::vector<std::vector<float>>> values) {
        if (!values.ok()) return done(values.error());
        std::optional<Result<Step>> step;
        try {
          step.emplace(assemble(std::move(values.value()), experts, *context, sampling, top_n));
        } catch (const Error& error) {
          step.emplace(error);
        }
        done(std::move(*step));
      });
}

}  // namespace wgpt::council
