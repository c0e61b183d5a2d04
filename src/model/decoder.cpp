#include "wgpt/decoder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

namespace wgpt::model {
namespace {

uint32_t bits(float value) {
  uint32_t word;
  std::memcpy(&word, &value, sizeof word);
  return word;
}

uint32_t u32(size_t value) { return static_cast<uint32_t>(value); }

// Threads across the columns of a decode matrix-vector product (each a vec4 of columns). For a GPU,
// the widest that still gives ~96 workgroups, so narrow matrices spread over enough of the GPU; at
// least 2, so each row segment read is 32 bytes (a full memory sector). For a software adapter the
// widest, 64: the fewest workgroups (see Decoder::Layout).
uint32_t column_threads(size_t columns4, bool software) {
  if (software) return 64;
  uint32_t tx = 64;
  while (tx > 2 && (columns4 + tx - 1) / tx < 96) tx /= 2;
  return tx;
}

gpu::Workgroups groups_for(size_t columns4, uint32_t tx) { return {u32((columns4 + tx - 1) / tx)}; }

}  // namespace

struct Decoder::Plan {
  std::shared_ptr<gpu::Context> context;
  Tensor step;  // u32 [position, token]
  Tensor x, q, h, logits;
  Tensor attention_partials;     // per (head, chunk of 64 keys): max, sum, head_dim outputs
  Tensor scores;                 // one layer's raw attention scores [n_head, n_ctx]
  Tensor patterns;               // every layer's probabilities, packed [n_layer, n_head, kv_len]
  Tensor candidates;             // the LM head's per-workgroup greedy candidates
  std::vector<Tensor> ln1, ln2;  // per layer, packed [gamma; beta]
  Tensor ln_final;
  std::vector<gpu::PreparedDispatch> layers;  // embedding and every block
  gpu::PreparedDispatch lm_head, argmax;
  std::unique_ptr<TokenSampler> sampler;  // none: greedy, the argmax of the LM head's candidates
};

bool Decoder::supported(const Model& model) {
  if (!model.on_gpu()) return false;
  const Config& c = model.config();
  const gpu::Limits& limits = model.context()->limits();
  return model.weights().token_embedding.size() == 1 && c.n_embd % 4 == 0 && c.n_embd <= 2048 &&
         c.head_dim() >= 4 && c.head_dim() <= 256 && 256 % c.head_dim() == 0 && c.n_head <= 64 &&
         limits.max_storage_buffers_per_stage >= 8 && limits.max_workgroup_storage_bytes >= 16384;
}

Decoder::~Decoder() = default;

Decoder::Decoder(const Model& model, KvCache& cache, Layout layout)
    : Decoder(model, cache, SamplingOptions{.greedy = true}, layout) {}

Decoder::Decoder(const Model& model, KvCache& cache, const SamplingOptions& sampling, Layout layout)
    : plan_(std::make_unique<Plan>()), model_(model), cache_(cache) {
  if (!supported(model)) throw Error("this model cannot use the GPU decode path");
  if (cache.keys.size() != model.config().n_layer)
    throw Error("the KV cache belongs to another model");
  const Config& c = model.config();
  Plan& p = *plan_;
  p.context = model.context();
  auto empty = [&](Shape shape, DType dtype = DType::f32) {
    return Tensor::empty_gpu(p.context, std::move(shape), dtype);
  };
  // Copied on the GPU: the browser cannot read the weights back synchronously.
  auto packed = [&](const Tensor& gamma, const Tensor& beta) {
    Tensor both = empty({2, c.n_embd});
    const size_t bytes = c.n_embd * 4;
    const size_t at = both.offset() * 4;
    p.context->copy({gamma.buffer(), gamma.offset() * 4, bytes}, {both.buffer(), at, bytes});
    p.context->copy({beta.buffer(), beta.offset() * 4, bytes}, {both.buffer(), at + bytes, bytes});
    return both;
  };
  p.step = empty({2}, DType::u32);
  p.x = empty({c.n_embd});
  p.q = empty({c.n_embd});
  p.h = empty({4 * c.n_embd});
  p.logits = empty({c.vocab_size});
  p.attention_partials = empty({c.n_head, (c.n_ctx + 63) / 64, c.head_dim() + 2});
  p.scores = empty({c.n_head, c.n_ctx});
  p.patterns = empty({c.n_layer, c.n_head, c.n_ctx});
  p.candidates = empty({(c.vocab_size + 31) / 32, 3}, DType::u32);
  gpu::Scope scope(*p.context);  // the packing copies: one submit
  for (const LayerWeights& w : model.weights().layers) {
    p.ln1.push_back(packed(w.ln1_gamma, w.ln1_beta));
    p.ln2.push_back(packed(w.ln2_gamma, w.ln2_beta));
  }
  p.ln_final = packed(model.weights().final_gamma, model.weights().final_beta);
  record_layers(layout == Layout::automatic ? p.context->adapter_info().is_cpu
                                            : layout == Layout::software);
  validate(sampling, c);
  if (!sampling.is_greedy() || sampling.adjusts_logits()) {
    p.sampler = std::make_unique<TokenSampler>(model, sampling, p.logits, p.step);
  }
}

void Decoder::record_layers(bool software) {
  Plan& p = *plan_;
  gpu::Context& context = *p.context;
  const Config& c = model_.config();
  const Weights& w = model_.weights();
  auto range = [](const Tensor& t) {
    return gpu::BufferRange(t.buffer(), t.offset() * 4, t.numel() * 4);
  };
  const float eps = c.layer_norm_epsilon;
  const size_t width4 = c.n_embd / 4;
  auto column_threads_for = [&](size_t columns4) { return column_threads(columns4, software); };

  const uint32_t embed_params[] = {u32(c.n_embd)};
  p.layers.push_back(context.prepare(
      "decode_embed", embed_params,
      {range(p.step), range(w.token_embedding[0]), range(w.position_embedding), range(p.x)},
      {u32((c.n_embd + 255) / 256)}));
  const uint32_t qkv_tx = column_threads_for(3 * width4);
  const uint32_t qkv_params[] = {u32(c.n_embd),     u32(3 * width4), qkv_tx,
                                 u32(c.head_dim()), u32(c.n_ctx),    bits(eps)};
  const size_t chunks = (c.n_ctx + 63) / 64;
  const uint32_t chunk_params[] = {u32(c.head_dim()), u32(c.n_ctx),
                                   bits(1.0f / std::sqrt(static_cast<float>(c.head_dim()))),
                                   u32(chunks)};
  const uint32_t proj_tx = column_threads_for(width4);
  const uint32_t up_tx = column_threads_for(4 * width4);
  const uint32_t up_params[] = {u32(c.n_embd), u32(4 * width4), up_tx, bits(eps)};
  const uint32_t down_params[] = {u32(4 * c.n_embd), u32(width4), proj_tx};
  for (size_t layer = 0; layer < c.n_layer; ++layer) {
    const LayerWeights& l = w.layers[layer];
    p.layers.push_back(context.prepare(
        "decode_qkv", qkv_params,
        {range(p.step), range(p.x), range(p.ln1[layer]), range(l.qkv_weight), range(l.qkv_bias),
         range(p.q), range(cache_.keys[layer]), range(cache_.values[layer])},
        groups_for(3 * width4, qkv_tx)));
    p.layers.push_back(
        context.prepare("decode_attention_chunk", chunk_params,
                        {range(p.step), range(p.q), range(cache_.keys[layer]),
                         range(cache_.values[layer]), range(p.scores), range(p.attention_partials)},
                        {u32(c.n_head), u32(chunks)}));
    const uint32_t output_params[] = {u32(c.n_embd), u32(width4), proj_tx,    u32(c.head_dim()),
                                      u32(c.n_ctx),  u32(chunks), u32(layer), u32(c.n_head)};
    p.layers.push_back(context.prepare(
        "decode_attention_output", output_params,
        {range(p.step), range(p.attention_partials), range(p.scores), range(l.attn_proj_weight),
         range(l.attn_proj_bias), range(p.patterns), range(p.x)},
        groups_for(width4, proj_tx)));
    p.layers.push_back(context.prepare(
        "decode_mlp_up", up_params,
        {range(p.x), range(p.ln2[layer]), range(l.fc_weight), range(l.fc_bias), range(p.h)},
        groups_for(4 * width4, up_tx)));
    p.layers.push_back(
        context.prepare("decode_mlp_down", down_params,
                        {range(p.h), range(l.mlp_proj_weight), range(l.mlp_proj_bias), range(p.x)},
                        groups_for(width4, proj_tx)));
  }
  const size_t groups = (c.vocab_size + 31) / 32;  // 32 logits per workgroup
  const size_t max_groups = context.limits().max_workgroups_per_dimension;
  const gpu::Workgroups head_groups{u32(std::min(groups, max_groups)),
                                    u32((groups + max_groups - 1) / max_groups)};
  const uint32_t head_params[] = {u32(width4), u32(c.vocab_size), bits(eps)};
  p.lm_head = context.prepare("decode_lm_head", head_params,
                              {range(p.x), range(p.ln_final), range(w.token_embedding[0]),
                               range(p.logits), range(p.candidates)},
                              head_groups);
  const uint32_t argmax_params[] = {u32(groups)};
  p.argmax =
      context.prepare("decode_argmax", argmax_params, {range(p.candidates), range(p.step)}, {1});
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
  p.context->write(p.step.buffer(), p.step.offset() * 4, std::as_bytes(std::span(state)));
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

void Decoder::record_step(bool choose_on_gpu) {
  Plan& p = *plan_;
  for (const auto& dispatch : p.layers) p.context->dispatch(dispatch);
  p.context->dispatch(p.lm_head);
  if (!choose_on_gpu) return;
  // The hook after the LM head: the next token is chosen here, on the GPU.
  if (p.sampler) {
    p.sampler->record();
  } else {
    p.context->dispatch(p.argmax);
  }
}

std::vector<gpu::BufferRange> Decoder::step_regions(bool token, bool traced, size_t kv_len) const {
  const Plan& p = *plan_;
  const Config& c = model_.config();
  std::vector<gpu::BufferRange> regions;
  if (token) regions.emplace_back(p.step.buffer(), p.step.offset() * 4 + 4, 4);
  if (traced) {
    regions.emplace_back(p.logits.buffer(), p.logits.offset() * 4, c.vocab_size * 4);
    regions.emplace_back(p.candidates.buffer(), p.candidates.offset() * 4,
                         p.candidates.numel() * 4);
    regions.emplace_back(p.patterns.buffer(), p.patterns.offset() * 4,
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
  record_step(true);
  const std::vector<std::byte> bytes =
      p.context->readback(p.step.buffer(), p.step.offset() * 4 + 4, 4);
  ++cache_.length_;
  return token_of(bytes);
}

std::vector<float> Decoder::step_logits(uint32_t token) {
  start(token);
  Plan& p = *plan_;
  gpu::Scope scope(*p.context);
  record_step(false);
  std::vector<float> logits = p.logits.to_floats();
  ++cache_.length_;
  return logits;
}

StepTrace Decoder::step_traced(uint32_t token, size_t top_n) {
  start(token);
  Plan& p = *plan_;
  const size_t kv_len = cache_.length() + 1;
  gpu::Scope scope(*p.context);  // the step and its readback copies: one submit
  record_step(false);
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
    record_step(choose_on_gpu);
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
  auto submit = [&] {
    const size_t index = submitted++;
    const size_t kv_len = first_kv_len + index;
    gpu::Scope scope(*p.context);
    record_step(true);
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
  };
  // A step still in flight wrote past the cache's length only, but its callback writes into this
  // frame: wait for it before returning or throwing.
  auto drain = [&] {
    for (size_t i = 0; i < submitted; ++i) {
      while (!arrived[i]) p.context->poll();
    }
  };
  try {
    submit();
    for (size_t i = 0; i < count; ++i) {
      if (submitted < count) submit();  // keep the next step in flight while waiting
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

}  // namespace wgpt::model

namespace wgpt::model {

std::vector<Decoder::KernelTime> Decoder::kernel_times(size_t repeats) {
  Plan& p = *plan_;
  // layers = [embed, then per block: qkv, attention chunks, attention output (merge and
  // projection), mlp up, mlp down]; each family once per step or once per block.
  const size_t blocks = model_.config().n_layer;
  struct Family {
    const char* name;
    const gpu::PreparedDispatch* dispatch;
    size_t per_step;
  };
  const std::vector<Family> families = {
      {"embedding", &p.layers[0], 1},
      {"ln1 + qkv + kv append", &p.layers[1], blocks},
      {"attention: chunks of 64 keys", &p.layers[2], blocks},
      {"attention: merge + projection + residual", &p.layers[3], blocks},
      {"ln2 + mlp up + gelu", &p.layers[4], blocks},
      {"mlp down + residual", &p.layers[5], blocks},
      {"ln_f + lm head + candidates", &p.lm_head, 1},
      {"argmax", &p.argmax, 1},
  };
  const uint32_t position =
      static_cast<uint32_t>(std::min(cache_.length(), model_.config().n_ctx - 1));
  std::vector<KernelTime> times;
  for (const Family& family : families) {
    const uint32_t state[] = {position, 0};
    p.context->write(p.step.buffer(), p.step.offset() * 4, std::as_bytes(std::span(state)));
    p.context->finish();
    const auto start = std::chrono::steady_clock::now();
    {
      gpu::Scope scope(*p.context);
      // argmax advances the position: reset it between repeats would need a write per repeat,
      // so the repeats of argmax run at growing positions, which it does not read.
      for (size_t i = 0; i < repeats; ++i) p.context->dispatch(*family.dispatch);
    }
    p.context->finish();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    times.push_back({family.name, family.per_step, 1e6 * seconds / static_cast<double>(repeats)});
  }
  return times;
}

}  // namespace wgpt::model
