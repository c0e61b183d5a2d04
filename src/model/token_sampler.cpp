// The GPU sampler (include/wgpt/sampling.h): its kernels prepared once over its buffers, in the
// order the definition runs — sample_prepare (steps 1–3), four sample_select passes per cut
// (top-k by count, then top-p by mass; a radix search over the rank key's four bytes),
// sample_draw (min-p, each slice's kept mass) and sample_pick (the draw). Greedy decoding is
// sample_prepare and sample_pick.
#include <cstring>

#include "model/sampling_terms.h"

namespace wgpt::model {
namespace {

constexpr uint32_t kSlice = 4096;  // logits per workgroup (lib/sample_common.wgsl's SLICE)
constexpr uint32_t kMaxSlices = 256;
constexpr uint32_t kSearchWords = 12;
enum SearchKind : uint32_t { kNone = 0, kCount = 1, kMass = 2 };

uint32_t bits(float value) {
  uint32_t word;
  std::memcpy(&word, &value, sizeof word);
  return word;
}

uint32_t u32(size_t value) { return static_cast<uint32_t>(value); }

gpu::BufferRange range(const Tensor& t) {
  return gpu::BufferRange(t.buffer(), t.offset() * 4, t.numel() * 4);
}

}  // namespace

struct TokenSampler::Plan {
  std::shared_ptr<gpu::Context> context;
  Tensor step, sequence, bias, z, best, partials[2], kept, searches;
  bool penalizes = false;
  std::vector<gpu::PreparedDispatch> dispatches;
};

TokenSampler::~TokenSampler() = default;

TokenSampler::TokenSampler(const Model& model, const SamplingOptions& options, const Tensor& logits,
                           const Tensor& step)
    : plan_(std::make_unique<Plan>()) {
  const Config& c = model.config();
  validate(options, c);
  if (!model.on_gpu()) throw Error("the GPU sampler needs a model on the GPU");
  const uint32_t groups = u32((c.vocab_size + kSlice - 1) / kSlice);
  if (groups > kMaxSlices) {
    throw Error("the GPU sampler handles vocabularies of up to " +
                std::to_string(kSlice * kMaxSlices) + " tokens, not " +
                std::to_string(c.vocab_size));
  }
  Plan& p = *plan_;
  p.context = model.context();
  p.step = step;
  p.penalizes = options.penalizes();
  auto empty = [&](Shape shape, DType dtype) {
    return Tensor::empty_gpu(p.context, std::move(shape), dtype);
  };
  std::vector<uint32_t> bias_words;
  for (const auto& [id, value] : options.logit_bias) {
    bias_words.push_back(id);
    bias_words.push_back(bits(value));
  }
  const size_t biases = options.logit_bias.size();
  if (bias_words.empty()) bias_words = {0, 0};  // a binding is never empty
  p.bias = Tensor::from_u32(bias_words, {bias_words.size()}).to_gpu(p.context);
  p.sequence = empty({c.n_ctx + 1}, DType::u32);
  p.z = empty({c.vocab_size}, DType::f32);
  p.best = empty({groups, 2}, DType::u32);
  p.partials[0] = empty({groups, 256, 3}, DType::u32);
  p.partials[1] = empty({groups, 256, 3}, DType::u32);
  p.kept = empty({groups, 3}, DType::u32);

  const sampling::Terms terms = sampling::terms_of(options);
  gpu::Context& context = *p.context;
  const uint32_t prepare_params[] = {u32(c.vocab_size),
                                     bits(terms.inv_temperature),
                                     bits(terms.inv_repeat),
                                     bits(options.repeat_penalty),
                                     bits(options.presence_penalty),
                                     bits(options.frequency_penalty),
                                     u32(p.penalizes ? options.penalty_last_n : 0),
                                     u32(biases)};
  p.dispatches.push_back(context.prepare(
      "sample_prepare", prepare_params,
      {range(logits), range(step), range(p.sequence), range(p.bias), range(p.z), range(p.best)},
      {groups}));

  std::vector<SearchKind> searches;
  if (!options.is_greedy()) {
    if (options.top_k > 0 && options.top_k < c.vocab_size) searches.push_back(kCount);
    if (options.top_p < 1.0f) searches.push_back(kMass);
  }
  p.searches = empty({4 * searches.size() + 1, kSearchWords}, DType::u32);
  // Each pass settles the one before it: pass n stores its search in slot n and histograms into
  // partials[n % 2], which pass n + 1 reads.
  uint32_t pass = 0, settle_kind = kNone, settle_level = 0;
  auto search_params = [&](uint32_t kind, uint32_t level) {
    return std::vector<uint32_t>{u32(c.vocab_size),
                                 groups,
                                 settle_kind,
                                 settle_level,
                                 kind,
                                 level,
                                 u32(std::min<size_t>(options.top_k, c.vocab_size)),
                                 bits(options.top_p),
                                 bits(options.min_p),
                                 pass == 0 ? 0 : pass - 1,
                                 pass};
  };
  for (SearchKind kind : searches) {
    for (uint32_t level = 0; level < 4; ++level) {
      p.dispatches.push_back(
          context.prepare("sample_select", search_params(kind, level),
                          {range(p.z), range(p.best), range(p.partials[(pass + 1) % 2]),
                           range(p.partials[pass % 2]), range(p.searches)},
                          {groups}));
      settle_kind = kind;
      settle_level = level;
      ++pass;
    }
  }
  if (!options.is_greedy()) {
    p.dispatches.push_back(
        context.prepare("sample_draw", search_params(kNone, 0),
                        {range(p.z), range(p.best), range(p.partials[(pass + 1) % 2]),
                         range(p.kept), range(p.searches)},
                        {groups}));
  }
  const uint32_t pick_params[] = {u32(c.vocab_size),
                                  groups,
                                  options.is_greedy() ? 1u : 0u,
                                  static_cast<uint32_t>(terms.key),
                                  static_cast<uint32_t>(terms.key >> 32),
                                  bits(options.min_p),
                                  pass};
  p.dispatches.push_back(context.prepare(
      "sample_pick", pick_params,
      {range(p.z), range(p.best), range(p.kept), range(p.searches), range(step), range(p.sequence)},
      {1}));
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
