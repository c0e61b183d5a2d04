#include "js_values.h"

namespace wgpt::web {
namespace {

val floats_to_js(const std::vector<float>& values) {
  // Constructing from a view of the wasm heap copies: the array outlives the vector.
  return val::global("Float32Array")
      .new_(emscripten::typed_memory_view(values.size(), values.data()));
}

val ids_to_js(const std::vector<uint32_t>& ids) {
  val array = val::array();
  for (uint32_t id : ids) array.call<void>("push", id);
  return array;
}

val token_to_js(const tokenizer::Tokenizer& tokenizer, uint32_t id) {
  val token = val::object();
  token.set("id", id);
  token.set("text", token_text(tokenizer, id));
  return token;
}

val candidates_to_js(const tokenizer::Tokenizer& tokenizer,
                     const std::vector<model::TopToken>& candidates) {
  val list = val::array();
  for (const model::TopToken& candidate : candidates) {
    val entry = token_to_js(tokenizer, candidate.id);
    entry.set("p", candidate.probability);
    list.call<void>("push", entry);
  }
  return list;
}

}  // namespace

val error_value(const std::string& message) {
  val result = val::object();
  result.set("error", message);
  return result;
}

std::string token_text(const tokenizer::Tokenizer& tokenizer, uint32_t id) {
  generate::Utf8Stream stream;
  std::string text = stream.push(tokenizer.token_bytes(id));
  return text + stream.finish();
}

val tokens_to_js(const tokenizer::Tokenizer& tokenizer, const std::vector<uint32_t>& ids) {
  val tokens = val::array();
  for (uint32_t id : ids) tokens.call<void>("push", token_to_js(tokenizer, id));
  return tokens;
}

val adapter_to_js(const gpu::AdapterInfo& adapter) {
  val result = val::object();
  result.set("vendor", adapter.vendor);
  result.set("architecture", adapter.architecture);
  result.set("device", adapter.device);
  result.set("description", adapter.description);
  result.set("backend", adapter.backend);
  result.set("isCpu", adapter.is_cpu);
  return result;
}

val trace_to_js(const tokenizer::Tokenizer& tokenizer, size_t n_layer, size_t step,
                const model::StepTrace& trace, uint32_t token) {
  val result = val::object();
  result.set("step", step);
  result.set("qLen", trace.q_len);
  result.set("kvLen", trace.kv_len);
  result.set("nHead", trace.n_head);
  val attention = val::array();
  for (size_t layer = 0; layer < n_layer; ++layer) {
    attention.call<void>(
        "push", floats_to_js(trace.at(model::hook_name(layer, "attn.hook_pattern")).values));
  }
  result.set("attention", attention);
  result.set("top", candidates_to_js(tokenizer, trace.top));
  result.set("chosen", token_to_js(tokenizer, token));
  return result;
}

val result_to_js(const generate::GenerateResult& result) {
  val out = val::object();
  out.set("promptIds", ids_to_js(result.prompt_ids));
  out.set("ids", ids_to_js(result.ids));
  out.set("text", result.text);
  out.set("stop", std::string(generate::to_string(result.stop)));
  out.set("promptMs", result.timings.prompt_ms);
  out.set("promptTokens", result.timings.prompt_tokens);
  out.set("generateMs", result.timings.generate_ms);
  out.set("generatedTokens", result.timings.generated_tokens);
  return out;
}

val surprisal_to_js(const tokenizer::Tokenizer& tokenizer, const model::Surprisal& surprisal) {
  val tokens = val::array();
  for (const model::TokenSurprisal& token : surprisal.tokens) {
    val entry = token_to_js(tokenizer, token.id);
    entry.set("bits", token.bits ? val(*token.bits) : val::null());
    entry.set("alternatives", candidates_to_js(tokenizer, token.alternatives));
    tokens.call<void>("push", entry);
  }
  val result = val::object();
  result.set("tokens", tokens);
  result.set("meanBits", surprisal.mean_bits);
  result.set("perplexity", surprisal.perplexity);
  return result;
}

val council_step_to_js(const tokenizer::Tokenizer& tokenizer, const council::Council& council,
                       size_t index, const council::Step& step) {
  val experts = val::array();
  for (size_t i = 0; i < step.experts.size(); ++i) {
    const council::ExpertStep& expert = step.experts[i];
    val entry = val::object();
    entry.set("name", council.experts()[i].name);
    entry.set("weight", expert.weight);
    entry.set("entropy", expert.entropy);
    entry.set("top", candidates_to_js(tokenizer, expert.top));
    entry.set("hidden", floats_to_js(expert.hidden));
    experts.call<void>("push", entry);
  }
  val result = val::object();
  result.set("step", index);
  result.set("chosen", token_to_js(tokenizer, step.chosen));
  result.set("consensus", step.consensus);
  result.set("leader", step.leader);
  result.set("top", candidates_to_js(tokenizer, step.top));
  result.set("hidden", floats_to_js(step.hidden));
  result.set("experts", experts);
  return result;
}

}  // namespace wgpt::web
