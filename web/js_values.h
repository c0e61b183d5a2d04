#pragma once
// The library's results as JavaScript values, in the shapes web/wgpt.js documents.

#include <emscripten/val.h>

#include <string>
#include <vector>

#include "wgpt/council.h"
#include "wgpt/generate.h"
#include "wgpt/probe.h"
#include "wgpt/tokenizer.h"

namespace wgpt::web {

using emscripten::val;

// {error: message}: a synchronous call's failure.
val error_value(const std::string& message);
// A token's text for display: its bytes, with an incomplete UTF-8 sequence shown as U+FFFD.
std::string token_text(const tokenizer::Tokenizer& tokenizer, uint32_t id);
// [{id, text}]
val tokens_to_js(const tokenizer::Tokenizer& tokenizer, const std::vector<uint32_t>& ids);
// {vendor, architecture, device, description, backend, isCpu}
val adapter_to_js(const gpu::AdapterInfo& adapter);
// {step, qLen, kvLen, nHead, attention: [Float32Array per layer], top: [{id, text, p}],
//  chosen: {id, text}}
val trace_to_js(const tokenizer::Tokenizer& tokenizer, size_t n_layer, size_t step,
                const model::StepTrace& trace, uint32_t token);
// {promptIds, ids, text, stop, promptMs, promptTokens, generateMs, generatedTokens}
val result_to_js(const generate::GenerateResult& result);
// {tokens: [{id, text, bits, alternatives: [{id, text, p}]}], meanBits, perplexity}
val surprisal_to_js(const tokenizer::Tokenizer& tokenizer, const model::Surprisal& surprisal);

// {step, chosen: {id, text}, consensus, leader, top: [{id, text, p}], hidden: Float32Array,
//  experts: [{name, weight, entropy, top: [{id, text, p}], hidden: Float32Array}]}
val council_step_to_js(const tokenizer::Tokenizer& tokenizer, const council::Council& council,
                       size_t index, const council::Step& step);

}  // namespace wgpt::web
