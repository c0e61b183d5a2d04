#include "wgpt/decoder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

#include "wgpt/decode_ops.h"

namespace wgpt::model {
namespace {

uint32_t u32(size_t value) { return static_cast<uint32_t>(value); }

bool is_power_of_two(size_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace

struct Decoder::Plan {
  std::shared_ptr<gpu::Context> context;
  Tensor step;  // u32 [position, token]
  Tensor x, q, h, logits;
  Tensor partials;               // per (head, chunk of 64 keys): max, sum, head_dim outputs
  Tensor scores;                 // one layer's raw attention scores [n_head, n_ctx]
  Tensor patterns;               // every layer's probabilities, packed [n_layer, n_head, kv_len]
  Tensor candidates;             // the LM head's greedy candidates, one per kHeadRows tokens
  std::vector<Tensor> ln1, ln2;  // per layer, packed [gamma; beta]
  Tensor ln_final;
  Tensor warm_sink;  // u32 [256]: the stores of the workgroups that warm weights
  ops::decode::Bound embed;
  std::vector<ops::decode::Bound> blocks;  // per block: qkv, attention chunks and output, MLP
  ops::decode::Bound lm_head, argmax;
  std::unique_ptr<TokenSampler> sampler;  // none: greedy, the argmax of the LM head's candidates
  size_t steps_in_flight = 0;             // Tuning::steps_in_flight (at least 1)
  size_t steps_per_submit = 0;            // Tuning::steps_per_submit (at least 1)
};

bool Decoder::supported(const Model& model) {
  if (!model.on_gpu()) return false;
  const Config& c = model.config();
  const gpu::Limits& limits = model.context()->limits();
  return model.weights().token_embedding.size() == 1 && c.n_embd % 8 == 0 && c.n_embd <= 2048 &&
         c.head_dim() >= 4 && c.head_dim() <= 256 && is_power_of_two(c.head_dim()) &&
         c.n_head <= 64 && limits.max_storage_buffers_per_stage >= 8 &&
         limits.max_workgroup_storage_bytes >= 16384;
}

Decoder::~Decoder() = default;

Decoder::Decoder(const Model& model, KvCache& cache, Tuning tuning)
    : Decoder(model, cache, SamplingOptions{.greedy = true}, tuning) {}

Decoder::Decoder(const Model& model, KvCache& cache, const SamplingOptions& sampling, Tuning tuning)
    : plan_(std::make_unique<Plan>()), model_(model), cache_(cache) {
  if (!supported(model)) throw Error("this model cannot use the GPU decode path");
  if (cache.keys.size() != model.config().n_layer)
    throw Error("the KV cache belongs to another model");
  if (tuning.steps_in_flight == 0) throw Error("the decoder needs at least one step in flight");
  if (tuning.steps_per_submit == 0) throw Error("a submit needs at least one decode step");
  const Config& c = model.config();
  Plan& p = *plan_;
  p.context = model.context();
  p.steps_in_flight = tuning.steps_in_flight;
  p.steps_per_submit = tuning.steps_per_submit;
  auto empty = [&](Shape shape, DType dtype = DType::f32) {
    return Tensor::empty_gpu(p.context, std::move(shape), dtype);
  };
  // Copied on the GPU: the browser cannot read the weights back synchronously.
  auto packed = [&](const Tensor& gamma, const Tensor& beta) {
    Tensor both = empty({2, c.n_embd});
    const size_t bytes = gamma.byte_size();
    p.context->copy(gamma.range(), {both.buffer(), both.byte_offset(), bytes});
    p.context->copy(beta.range(), {both.buffer(), both.byte_offset() + bytes, bytes});
    return both;
  };
  p.step = empty({2}, DType::u32);
  p.x = empty({c.n_embd});
  p.q = empty({c.n_embd});
  p.h = empty({4 * c.n_embd});
  p.logits = empty({c.vocab_size});
  p.partials = empty(
      {c.n_head, (c.n_ctx + ops::decode::kChunk - 1) / ops::decode::kChunk, c.head_dim() + 2});
  p.scores = empty({c.n_head, c.n_ctx});
  p.patterns = empty({c.n_layer, c.n_head, c.n_ctx});
  p.candidates =
      empty({(c.vocab_size + ops::decode::kHeadRows - 1) / ops::decode::kHeadRows, 3}, DType::u32);
  // Asked before the packing scope: the first time, the answer is a probe's readback.
  const bool usable = ops::decode::subgroups_usable(*p.context);
  gpu::Scope scope(*p.context);  // the packing copies: one submit
  for (const LayerWeights& w : model.weights().layers) {
    p.ln1.push_back(packed(w.ln1_gamma, w.ln1_beta));
    p.ln2.push_back(packed(w.ln2_gamma, w.ln2_beta));
  }
  p.ln_final = packed(model.weights().final_gamma, model.weights().final_beta);
  ops::decode::Options options;
  options.software = tuning.layout == Layout::automatic ? p.context->adapter_info().is_cpu
                                                        : tuning.layout == Layout::software;
  if (tuning.reductions == Reductions::subgroup && !usable) {
    throw Error("this adapter has no 32-lane subgroups laid out as the subgroup reductions need");
  }
  options.subgroups = tuning.reductions == Reductions::automatic
                          ? usable && !options.software
                          : tuning.reductions == Reductions::subgroup;
  if (tuning.product_workgroups) options.product_workgroups = tuning.product_workgroups;
  const bool warm = tuning.warm_weights == Warming::automatic
                        ? !options.software && model.weight_dtype() == DType::q4
                        : tuning.warm_weights == Warming::on;
  bind_kernels(options, warm);
  validate(sampling, c);
  if (!sampling.is_greedy() || sampling.adjusts_logits()) {
    p.sampler = std::make_unique<TokenSampler>(model, sampling, p.logits, p.step);
  }
}

bool Decoder::warms_weights() const { return plan_->warm_sink.numel() > 0; }

void Decoder::bind_kernels(const ops::decode::Options& options, bool warm_weights) {
  namespace decode = ops::decode;
  Plan& p = *plan_;
  const Config& c = model_.config();
  const Weights& w = model_.weights();
  const float eps = c.layer_norm_epsilon;
  const Tensor& wte = w.token_embedding[0];
  if (warm_weights) p.warm_sink = Tensor::empty_gpu(p.context, {256}, DType::u32);
  // Each warming kernel warms one product (its bindings allow one more range): the attention
  // chunks the MLP's first layer, that layer its second, and the second the next layer's QKV
  // projection. The attention's output projection (the smallest) and the first layer's QKV go
  // unwarmed, and so does the LM head's table, which no L2 holds.
  auto warming = [&](const Tensor& weights) {
    return warm_weights ? decode::Warm{weights, p.warm_sink} : decode::Warm{};
  };
  p.embed = decode::embed(p.step, wte, w.position_embedding, p.x);
  for (size_t layer = 0; layer < c.n_layer; ++layer) {
    const LayerWeights& l = w.layers[layer];
    const Tensor &keys = cache_.keys[layer], &values = cache_.values[layer];
    p.blocks.push_back(decode::qkv(
        {p.step, p.x, p.ln1[layer], l.qkv_weight, l.qkv_bias, p.q, keys, values, eps}, options));
    p.blocks.push_back(decode::attention_chunks({p.step, p.q, keys, values, p.scores, p.partials},
                                                options, warming(l.fc_weight)));
    p.blocks.push_back(decode::attention_output({p.step, p.partials, p.scores, l.attn_proj_weight,
                                                 l.attn_proj_bias, p.patterns, p.x, layer},
                                                options));
    p.blocks.push_back(decode::mlp_up({p.x, p.ln2[layer], l.fc_weight, l.fc_bias, p.h, eps},
                                      options, warming(l.mlp_proj_weight)));
    p.blocks.push_back(decode::mlp_down(
        {p.h, l.mlp_proj_weight, l.mlp_proj_bias, p.x}, options,
        layer + 1 < c.n_layer ? warming(w.layers[layer + 1].qkv_weight) : decode::Warm{}));
  }
  p.lm_head = decode::lm_head({p.x, p.ln_final, wte, p.logits, p.candidates, eps}, options);
  p.argmax = decode::argmax({p.candidates, wte, w.position_embedding, p.step, p.x}, options);
}

namespace {

void check_room(const KvCache& cache, const Config& config, uint32_t token) {
  if (cache.length() >= config.n_ctx) {
    throw Error("the model's context of " + std::to_string(config.n_ctx) + " tokens is full");
  }
  if (token >= config.vocab_size) {
    throw Error("token id " + std::to_string(token) + " is outside the vocabulary of " +
                std::to_string(config.vocab_size));
  }
}

}  // namespace

void Decoder::start(uint32_t token) {
  check_room(cache_, model_.config(), token);
  Plan& p = *plan_;
  const uint32_t state[] = {u32(cache_.length()), token};
  p.context->write(p.step.buffer(), p.step.byte_offset(), std::as_bytes(std::span(state)));
}

void Decoder::begin(std::span<const uint32_t> context) {
  if (context.empty()) throw Error("the decoder needs a token to run");
  Plan& p = *plan_;
  if (!p.sampler) return start(context.back());
  check_room(cache_, model_.config(), context.back());
  if (context.size() != cache_.length() + 1) {
    throw Error("sampling needs the whole context: " + std::to_string(cache_.length() + 1) +
                " tokens for a cache of " + std::to_string(cache_.length()) + ", not " +
                std::to_string(context.size()));
  }
  p.sampler->start(context);
}

void Decoder::require_plain_greedy(const char* what) const {
  if (plan_->sampler) {
    throw Error(std::string(what) +
                " decodes greedily without a context: this decoder samples "
                "(or adjusts the logits), so use generate() with the whole context");
  }
}

void Decoder::record_step(bool embed, bool choose_on_gpu) {
  Plan& p = *plan_;
  // The sampler writes only the token it chose (decode_argmax embeds it too), so a step after a
  // sampled one embeds its token itself.
  if (embed || p.sampler) p.embed.run();
  for (const auto& block : p.blocks) block.run();
  p.lm_head.run();
  if (!choose_on_gpu) return;
  // The hook after the LM head: the next token is chosen here, on the GPU.
  if (p.sampler) {
    p.sampler->record();
  } else {
    p.argmax.run();
  }
}

std::vector<gpu::BufferRange> Decoder::step_regions(bool token, bool traced, size_t kv_len) const {
  const Plan& p = *plan_;
  const Config& c = model_.config();
  std::vector<gpu::BufferRange> regions;
  if (token) regions.emplace_back(p.step.buffer(), p.step.byte_offset() + 4, 4);
  if (traced) {
    regions.push_back(p.logits.range());
    regions.push_back(p.candidates.range());
    regions.emplace_back(p.patterns.buffer(), p.patterns.byte_offset(),
                         c.n_layer * c.n_head * kv_len * 4);
  }
  return regions;
}

namespace {

std::vector<float> floats_of(const std::vector<std::byte>& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

uint32_t token_of(const std::vector<std::byte>& bytes) {
  uint32_t token;
  std::memcpy(&token, bytes.data(), sizeof token);
  return token;
}

}  // namespace

// `regions` holds the logits, the LM head's candidates and the packed patterns, as
// step_regions(_, true, kv_len) reads them.
StepTrace Decoder::assemble_trace(std::span<const std::vector<std::byte>> regions, size_t kv_len,
                                  size_t top_n) const {
  const Config& c = model_.config();
  StepTrace trace;
  trace.q_len = 1;
  trace.kv_len = kv_len;
  trace.n_head = c.n_head;
  trace.logits = floats_of(regions[0]);
  // The softmax normaliser from the workgroups' partial sums, rescaled to the overall maximum.
  const std::vector<float> candidates = floats_of(regions[1]);
  float largest = candidates[0];
  for (size_t g = 0; g < candidates.size(); g += 3) largest = std::max(largest, candidates[g]);
  double normaliser = 0;
  for (size_t g = 0; g < candidates.size(); g += 3) {
    normaliser += candidates[g + 2] * std::exp(static_cast<double>(candidates[g]) - largest);
  }
  trace.top = top_tokens(trace.logits, std::min(top_n, c.vocab_size), largest, normaliser);
  const std::vector<float> patterns = floats_of(regions[2]);
  const size_t per_layer = c.n_head * kv_len;
  for (size_t layer = 0; layer < c.n_layer; ++layer) {
    const auto first = patterns.begin() + static_cast<std::ptrdiff_t>(layer * per_layer);
    trace.captures.push_back(
        {hook_name(layer, "attn.hook_pattern"),
         {c.n_head, 1, kv_len},
         std::vector<float>(first, first + static_cast<std::ptrdiff_t>(per_layer))});
  }
  return trace;
}

uint32_t Decoder::step_greedy(uint32_t token) {
  require_plain_greedy("step_greedy");
  start(token);
  Plan& p = *plan_;
  gpu::Scope scope(*p.context);
  record_step(true, true);
  const std::vector<std::byte> bytes =
      p.context->readback(p.step.buffer(), p.step.byte_offset() + 4, 4);
  ++cache_.length_;
  return token_of(bytes);
}

std::vector<float> Decoder::step_logits(uint32_t token) {
  start(token);
  Plan& p = *plan_;
  gpu::Scope scope(*p.context);
  record_step(true, false);
  std::vector<float> logits = p.logits.to_floats();
  ++cache_.length_;
  return logits;
}

StepTrace Decoder::step_traced(uint32_t token, size_t top_n) {
  start(token);
  Plan& p = *plan_;
  const size_t kv_len = cache_.length() + 1;
  gpu::Scope scope(*p.context);  // the step and its readback copies: one submit
  record_step(true, false);
  const auto bytes = p.context->readback_many(step_regions(false, true, kv_len));
  ++cache_.length_;
  return assemble_trace(bytes, kv_len, top_n);
}

void Decoder::step_traced_async(uint32_t token, size_t top_n,
                                std::function<void(Result<StepTrace>)> done) {
  start(token);
  read_step_async(false, [this, top_n, done](Result<Regions> bytes, size_t kv_len) {
    if (!bytes.ok()) return done(bytes.error());
    done(assemble_trace(bytes.value(), kv_len, top_n));
  });
}

void Decoder::step_chosen_async(std::span<const uint32_t> context, size_t top_n,
                                std::function<void(Result<ChosenStep>)> done) {
  begin(context);
  read_step_async(true, [this, top_n, done](Result<Regions> bytes, size_t kv_len) {
    if (!bytes.ok()) return done(bytes.error());
    const auto regions = std::span(bytes.value());
    done(ChosenStep{token_of(regions[0]), assemble_trace(regions.subspan(1), kv_len, top_n)});
  });
}

void Decoder::read_step_async(bool choose_on_gpu,
                              std::function<void(Result<Regions>, size_t kv_len)> then) {
  Plan& p = *plan_;
  const size_t kv_len = cache_.length() + 1;
  {
    gpu::Scope scope(*p.context);  // the step and its readback copies: one submit
    record_step(true, choose_on_gpu);
    p.context->readback_many_async(
        step_regions(choose_on_gpu, true, kv_len),
        [then, kv_len](Result<Regions> bytes) { then(std::move(bytes), kv_len); });
  }
  ++cache_.length_;
}

std::vector<uint32_t> Decoder::generate(std::span<const uint32_t> context, size_t count,
                                        const std::function<bool(uint32_t)>& on_token) {
  return run(context, count, std::nullopt,
             [&](uint32_t next, const StepTrace*) { return !on_token || on_token(next); });
}

std::vector<uint32_t> Decoder::generate_traced(
    std::span<const uint32_t> context, size_t count, size_t top_n,
    const std::function<bool(uint32_t, const StepTrace&)>& on_step) {
  return run(context, count, top_n, [&](uint32_t next, const StepTrace* trace) {
    return !on_step || on_step(next, *trace);
  });
}

std::vector<uint32_t> Decoder::greedy(uint32_t token, size_t count,
                                      const std::function<bool(uint32_t)>& on_token) {
  require_plain_greedy("greedy");
  return generate(std::span(&token, 1), count, on_token);
}

std::vector<uint32_t> Decoder::greedy_traced(
    uint32_t token, size_t count, size_t top_n,
    const std::function<bool(uint32_t, const StepTrace&)>& on_step) {
  require_plain_greedy("greedy_traced");
  return generate_traced(std::span(&token, 1), count, top_n, on_step);
}

std::vector<uint32_t> Decoder::run(std::span<const uint32_t> context, size_t count,
                                   std::optional<size_t> top_n,
                                   const std::function<bool(uint32_t, const StepTrace*)>& on_step) {
  Plan& p = *plan_;
  const size_t room = model_.config().n_ctx - std::min(model_.config().n_ctx, cache_.length());
  count = std::min(count, room);
  std::vector<uint32_t> tokens;
  if (count == 0) return tokens;
  begin(context);
  const size_t first_kv_len = cache_.length() + 1;
  // Results land here from readback callbacks; arrived[i] says step i's are in.
  std::vector<uint32_t> results(count);
  std::vector<std::optional<StepTrace>> traces(count);
  std::vector<char> arrived(count, 0);
  std::optional<Error> failure;
  size_t submitted = 0;
  // One submit: the next steps_per_submit steps (fewer at the end), each with its own readback,
  // recorded after the step so that a later step's writes cannot reach it. A step counts as
  // submitted once its readback is recorded: drain() waits for no other.
  auto submit = [&] {
    gpu::Scope scope(*p.context);
    for (const size_t end = std::min(count, submitted + p.steps_per_submit); submitted < end;
         ++submitted) {
      const size_t index = submitted;
      const size_t kv_len = first_kv_len + index;
      // The first step embeds the host's token; each later one the token the GPU chose before it.
      record_step(index == 0, true);
      p.context->readback_many_async(
          step_regions(true, top_n.has_value(), kv_len),
          [&, index, kv_len](Result<std::vector<std::vector<std::byte>>> bytes) {
            if (!bytes.ok()) {
              failure = bytes.error();
            } else {
              results[index] = token_of(bytes.value()[0]);
              if (top_n) {
                traces[index] = assemble_trace(std::span(bytes.value()).subspan(1), kv_len, *top_n);
              }
            }
            arrived[index] = 1;
          });
    }
  };
  // A step still in flight wrote past the cache's length only, but its callback writes into this
  // frame: wait for it before returning or throwing.
  auto drain = [&] {
    for (size_t i = 0; i < submitted; ++i) {
      while (!arrived[i]) p.context->poll();
    }
  };
  try {
    for (size_t i = 0; i < count; ++i) {
      // Submits up to steps_in_flight ahead of step i in flight while waiting for it.
      while (submitted < std::min(count, i + p.steps_in_flight * p.steps_per_submit)) submit();
      while (!arrived[i]) p.context->poll();
      if (failure) throw *failure;
      ++cache_.length_;
      tokens.push_back(results[i]);
      const bool go_on = on_step(results[i], traces[i] ? &*traces[i] : nullptr);
      traces[i].reset();
      if (!go_on) break;
    }
  } catch (...) {
    drain();
    throw;
  }
  drain();
  return tokens;
}

std::vector<Decoder::KernelChain> Decoder::time_kernel_chains(size_t length, double seconds) {
#ifdef __EMSCRIPTEN__
  (void)length;
  (void)seconds;
  throw Error("timing kernel chains waits for the GPU, which the browser forbids");
#else
  if (length == 0 || !(seconds > 0)) throw Error("a kernel chain needs a length and a time");
  Plan& p = *plan_;
  std::vector<const ops::decode::Bound*> kinds = {&p.embed};
  const size_t per_block = p.blocks.size() / model_.config().n_layer;
  for (size_t i = 0; i < per_block; ++i) kinds.push_back(&p.blocks[i]);  // layer 0's
  kinds.push_back(&p.lm_head);
  kinds.push_back(&p.argmax);
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  std::vector<KernelChain> rows;
  for (const ops::decode::Bound* kind : kinds) {
    // Passes until `seconds` have gone by, two in flight as decoding keeps them, so that the
    // host's recording of one pass overlaps the GPU's work on the other: each pass ends with a
    // readback of the step state's first word, whose arrival says the pass is done.
    auto passes_for = [&](double budget) {
      size_t submitted = 0, completed = 0;
      std::optional<Error> failure;
      auto submit_pass = [&] {
        start(0);  // the position back at the cache's length (decode_argmax advances it)
        gpu::Scope scope(*p.context);
        for (size_t i = 0; i < length; ++i) kind->run();
        p.context->readback_many_async({gpu::BufferRange(p.step.buffer(), p.step.byte_offset(), 4)},
                                       [&](Result<std::vector<std::vector<std::byte>>> done) {
                                         if (!done.ok()) failure = done.error();
                                         ++completed;
                                       });
        ++submitted;
      };
      const auto from = Clock::now();
      do {
        while (submitted < completed + 2) submit_pass();
        p.context->poll();
      } while (!failure && seconds_since(from) < budget);
      while (completed < submitted) p.context->poll();
      if (failure) throw *failure;
      return std::pair(submitted, seconds_since(from));
    };
    passes_for(seconds);  // warm-up
    const auto [passes, spent] = passes_for(seconds);
    rows.push_back({kind->kernel(), 1e6 * spent / static_cast<double>(passes * length)});
  }
  return rows;
#endif
}

}  // namespace wgpt::model
