// The GPU sampler (include/wgpt/sampling.h): its kernels prepared once over its buffers, in the
// order the definition runs — sample_prepare (steps 1–3), four passes per cut (top-k by count,
// then top-p by mass; a radix search over the rank key's four bytes), sample_draw (min-p, each
// slice's kept mass) and sample_pick (the draw). A pass is a sample_select, except top-k's first,
// which sample_prepare runs (top-p's first needs the largest z of every slice, which only a later
// kernel has). Greedy decoding is sample_prepare and sample_pick. Each pass's slices add their
// histograms into one (settling reads 3 words, not every slice's), which sample_pick zeroes for
// the next step; the largest z, once a pass has found it, travels with the search.

#include "model/sampling_terms.h"
#include "wgpt/io.h"

namespace wgpt::model {
namespace {

constexpr uint32_t kSlice = 1024;  // logits per workgroup (lib/sample_common.wgsl's SLICE)
constexpr uint32_t kMaxSlices = 256;
constexpr uint32_t kSearchWords = 12;
enum SearchKind : uint32_t { kNone = 0, kCount = 1, kMass = 2 };

uint32_t u32(size_t value) { return static_cast<uint32_t>(value); }

// Whether sample_prepare runs the first pass of `cuts` (into slot 0 and histogram 0).
bool prepare_runs_first_pass(const std::vector<SearchKind>& cuts) {
  return !cuts.empty() && cuts.front() == kCount;
}

gpu::BufferRange range(const Tensor& t) {
  return gpu::BufferRange(t.buffer(), t.offset() * 4, t.numel() * 4);
}

}  // namespace

struct TokenSampler::Plan {
  std::shared_ptr<gpu::Context> context;
  uint32_t vocab = 0, groups = 0;
  Tensor step, sequence, bias, z, best, histograms, kept, searches;
  bool penalizes = false;
  std::vector<gpu::PreparedDispatch> dispatches;

  void allocate(const Config& c, const SamplingOptions& options, size_t cuts);
  // sample_prepare, with the first pass of `cuts` when it is top-k's.
  void prepare_adjustments(const SamplingOptions& options, const sampling::Terms& terms,
                           const Tensor& logits, const std::vector<SearchKind>& cuts);
  // The cuts' passes that sample_prepare did not run, then sample_draw; returns the slot of the
  // settled cut.
  uint32_t prepare_cuts(const std::vector<SearchKind>& cuts, const SamplingOptions& options);
  void prepare_pick(const SamplingOptions& options, const sampling::Terms& terms, uint32_t slot);
};

void TokenSampler::Plan::allocate(const Config& c, const SamplingOptions& options, size_t cuts) {
  auto empty = [&](Shape shape, DType dtype) {
    return Tensor::empty_gpu(context, std::move(shape), dtype);
  };
  std::vector<uint32_t> bias_words;
  for (const auto& [id, value] : options.logit_bias) {
    bias_words.push_back(id);
    bias_words.push_back(io::f32_bits(value));
  }
  if (bias_words.empty()) bias_words = {0, 0};  // a binding is never empty
  bias = Tensor::from_u32(bias_words, {bias_words.size()}).to_gpu(context);
  sequence = empty({c.n_ctx + 1}, DType::u32);
  z = empty({c.vocab_size}, DType::f32);
  best = empty({groups, 2}, DType::u32);
  // A histogram per pass, which the slices add into: zero to start with (not a pooled buffer's
  // contents), then zeroed by sample_pick at the end of every step. A binding is never empty.
  histograms = Tensor::zeros({std::max<size_t>(4 * cuts, 1), 256, 3}, DType::u32).to_gpu(context);
  kept = empty({groups, 3}, DType::u32);
  searches = empty({4 * cuts + 1, kSearchWords}, DType::u32);
}

void TokenSampler::Plan::prepare_adjustments(const SamplingOptions& options,
                                             const sampling::Terms& terms, const Tensor& logits,
                                             const std::vector<SearchKind>& cuts) {
  const uint32_t params[] = {vocab,
                             groups,
                             prepare_runs_first_pass(cuts) ? uint32_t{kCount} : uint32_t{kNone},
                             u32(std::min<size_t>(options.top_k, vocab)),
                             io::f32_bits(terms.inv_temperature),
                             io::f32_bits(terms.inv_repeat),
                             io::f32_bits(options.repeat_penalty),
                             io::f32_bits(options.presence_penalty),
                             io::f32_bits(options.frequency_penalty),
                             u32(penalizes ? options.penalty_last_n : 0),
                             u32(options.logit_bias.size())};
  dispatches.push_back(context->prepare("sample_prepare", params,
                                        {range(logits), range(step), range(sequence), range(bias),
                                         range(z), range(best), range(histograms), range(searches)},
                                        {groups}));
}

uint32_t TokenSampler::Plan::prepare_cuts(const std::vector<SearchKind>& cuts,
                                          const SamplingOptions& options) {
  // Each pass settles the one before it: pass n stores its search in slot n and its histogram in
  // histogram n, which pass n + 1 reads. sample_prepare may have run pass 0.
  const bool first_pass_run = prepare_runs_first_pass(cuts);
  uint32_t pass = first_pass_run ? 1 : 0;
  uint32_t settle_kind = first_pass_run ? kCount : kNone, settle_level = 0;
  // Whether the previous pass stored the largest z with its search: every pass after the first
  // that needs it (one that weighs top-p's mass, or the draw) reads it there.
  bool largest_in_slot = false;
  auto params = [&](uint32_t kind, uint32_t level) {
    return std::vector<uint32_t>{vocab,
                                 groups,
                                 settle_kind,
                                 settle_level,
                                 kind,
                                 level,
                                 u32(std::min<size_t>(options.top_k, vocab)),
                                 io::f32_bits(options.top_p),
                                 io::f32_bits(options.min_p),
                                 pass == 0 ? 0 : pass - 1,
                                 pass,
                                 largest_in_slot ? 1u : 0u};
  };
  for (size_t cut = 0; cut < cuts.size(); ++cut) {
    const SearchKind kind = cuts[cut];
    for (uint32_t level = cut == 0 && first_pass_run ? 1 : 0; level < 4; ++level) {
      dispatches.push_back(
          context->prepare("sample_select", params(kind, level),
                           {range(z), range(best), range(histograms), range(searches)}, {groups}));
      largest_in_slot = largest_in_slot || kind == kMass || settle_kind == kMass;
      settle_kind = kind;
      settle_level = level;
      ++pass;
    }
  }
  dispatches.push_back(context->prepare(
      "sample_draw", params(kNone, 0),
      {range(z), range(best), range(histograms), range(kept), range(searches)}, {groups}));
  return pass;
}

void TokenSampler::Plan::prepare_pick(const SamplingOptions& options, const sampling::Terms& terms,
                                      uint32_t slot) {
  const uint32_t params[] = {vocab,
                             groups,
                             options.is_greedy() ? 1u : 0u,
                             static_cast<uint32_t>(terms.key),
                             static_cast<uint32_t>(terms.key >> 32),
                             io::f32_bits(options.min_p),
                             slot};
  dispatches.push_back(context->prepare("sample_pick", params,
                                        {range(z), range(best), range(kept), range(searches),
                                         range(step), range(sequence), range(histograms)},
                                        {1}));
}

TokenSampler::~TokenSampler() = default;

TokenSampler::TokenSampler(const Model& model, const SamplingOptions& options, const Tensor& logits,
                           const Tensor& step)
    : plan_(std::make_unique<Plan>()) {
  const Config& c = model.config();
  validate(options, c);
  if (!model.on_gpu()) throw Error("the GPU sampler needs a model on the GPU");
  Plan& p = *plan_;
  p.vocab = u32(c.vocab_size);
  p.groups = u32((c.vocab_size + kSlice - 1) / kSlice);
  if (p.groups > kMaxSlices) {
    throw Error("the GPU sampler handles vocabularies of up to " +
                std::to_string(kSlice * kMaxSlices) + " tokens, not " +
                std::to_string(c.vocab_size));
  }
  p.context = model.context();
  p.step = step;
  p.penalizes = options.penalizes();
  std::vector<SearchKind> cuts;
  if (!options.is_greedy()) {
    if (options.top_k > 0 && options.top_k < c.vocab_size) cuts.push_back(kCount);
    if (options.top_p < 1.0f) cuts.push_back(kMass);
  }
  p.allocate(c, options, cuts.size());
  const sampling::Terms terms = sampling::terms_of(options);
  p.prepare_adjustments(options, terms, logits, cuts);
  p.prepare_pick(options, terms, options.is_greedy() ? 0 : p.prepare_cuts(cuts, options));
}

void TokenSampler::start(std::span<const uint32_t> context) {
  Plan& p = *plan_;
  if (context.empty()) throw Error("the sampler needs a context of at least one token");
  if (context.size() > p.sequence.numel()) {
    throw Error("a context of " + std::to_string(context.size()) +
                " tokens does not fit the sampler's " + std::to_string(p.sequence.numel()));
  }
  if (p.penalizes) {
    p.context->write(p.sequence.buffer(), p.sequence.offset() * 4, std::as_bytes(context));
  }
  const uint32_t state[] = {u32(context.size() - 1), context.back()};
  p.context->write(p.step.buffer(), p.step.offset() * 4, std::as_bytes(std::span(state)));
}

void TokenSampler::record() {
  for (const gpu::PreparedDispatch& dispatch : plan_->dispatches)
    plan_->context->dispatch(dispatch);
}

size_t TokenSampler::dispatches() const { return plan_->dispatches.size(); }

}  // namespace wgpt::model
