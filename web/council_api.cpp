// The council in the browser (web/wgpt.js wraps it in promises): experts loaded from their bytes
// onto the session's device, and a council run streamed step by step, as `wgpt council` does.
#include <emscripten/bind.h>

#include "js_values.h"
#include "session.h"

namespace wgpt::web {
namespace {

val council_info() {
  const Session& s = session();
  if (!s.council) return val::null();
  const council::Council& council = *s.council;
  val names = val::array();
  for (const council::Expert& expert : council.experts()) names.call<void>("push", expert.name);
  val info = val::object();
  info.set("experts", names);
  info.set("nEmbd", council.config().n_embd);
  info.set("nCtx", council.config().n_ctx);
  info.set("vocabSize", council.config().vocab_size);
  info.set("beta", council.beta());
  info.set("tokenizer", std::string(s.council_tokenizer->kind()));
  return info;
}

// experts: Uint8Arrays of .fzm or .safetensors files; names: one label each; config, vocab and
// merges: the text of the experts' shared config.json, vocab.json and merges.txt ('' for none).
val load_council(val experts, val names, std::string config_json, std::string vocab_json,
                 std::string merges_txt) {
  try {
    check_ready(false);
    const model::Config config = model::Config::from_json(config_json);
    auto tokenizer = make_tokenizer(config, vocab_json, merges_txt);
    std::vector<council::Expert> members;
    const size_t count = experts["length"].as<size_t>();
    if (names["length"].as<size_t>() != count) throw Error("give one name per expert");
    for (size_t i = 0; i < count; ++i) {
      const std::string name = names[i].as<std::string>();
      const std::vector<uint8_t> bytes = bytes_of(experts[i]);
      members.push_back(
          {name, model::Model::from_tensors(config, io::load_tensors(bytes, "expert " + name),
                                            session().context)});
    }
    auto loaded = std::make_unique<council::Council>(std::move(members));
    session().council = std::move(loaded);
    session().council_tokenizer = std::move(tokenizer);
    return council_info();
  } catch (const std::exception& error) {
    return error_value(error.what());
  }
}

val set_council_beta(double beta) {
  try {
    if (!session().council) throw Error("no council is loaded: call loadCouncil() first");
    session().council->set_beta(static_cast<float>(beta));
    return val(beta);
  } catch (const std::exception& error) {
    return error_value(error.what());
  }
}

// options: generate()'s sampling options (maxTokens, temperature, topK, topP, minP, repeatPenalty,
// presencePenalty, frequencyPenalty, repeatLastN, logitBias, seed, greedy), beta and topN;
// on_text(text) per piece; on_step(step) per step; done(error, result) once. Stops when stop() is
// called. Options the council cannot use are an error before anything runs.
void run_council(std::string prompt, val options, val on_text, val on_step, val done) {
  try {
    check_ready(false);
    Session& s = session();
    if (!s.council) throw Error("no council is loaded: call loadCouncil() first");
    RunGuard guard;
    const std::vector<uint32_t> ids = s.council_tokenizer->encode(prompt);
    council::CouncilOptions settings;
    settings.generate = generate_options(options);
    const OptionReader read(options);
    settings.top_n = static_cast<size_t>(read.whole("topN", settings.top_n, 1e6));
    s.council->set_beta(static_cast<float>(read.number("beta", s.council->beta())));
    council::StepCallback step_callback = [on_step](size_t index,
                                                    const council::Step& step) mutable {
      on_step(council_step_to_js(*session().council_tokenizer, *session().council, index, step));
      return !session().stop_requested;
    };
    generate::TextCallback text_callback = [on_text](std::string_view text) mutable {
      on_text(std::string(text));
      return !session().stop_requested;
    };
    s.stop_requested = false;
    guard.started();
    council::generate_async(*s.council, *s.council_tokenizer, ids, settings,
                            std::move(step_callback), std::move(text_callback),
                            [done](Result<generate::GenerateResult> result) mutable {
                              session().busy = false;
                              settle(done, result, result_to_js);
                            });
  } catch (const std::exception& error) {
    done(std::string(error.what()));
  }
}

}  // namespace
}  // namespace wgpt::web

EMSCRIPTEN_BINDINGS(wgpt_council) {
  using namespace wgpt::web;
  emscripten::function("loadCouncil", &load_council);
  emscripten::function("councilInfo", &council_info);
  emscripten::function("setCouncilBeta", &set_council_beta);
  emscripten::function("council", &run_council);
}
