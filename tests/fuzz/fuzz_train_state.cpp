// libFuzzer target: train_state.safetensors on arbitrary bytes — the checkpoint `wgpt train
// --resume` reads. Its config must parse or be refused, and restoring it into a model of that
// config (small ones only: the fuzzer must stay fast) must succeed or throw wgpt::Error, never
// leave a half-restored model: a refused checkpoint changes no parameter.

#include <cstdint>
#include <cstdlib>

#include "train/train_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wgpt;
  try {
    const io::TensorFile file = io::load_safetensors(std::span<const uint8_t>(data, size));
    const model::Config config = train::train_state_config(file, "fuzz/train_state");
    if (config.parameter_count() > 20'000) return 0;
    const model::Model model = model::Model::random(config, 7);
    std::vector<train::Parameter> params = train::parameters(model);
    std::vector<std::vector<float>> before;
    for (const train::Parameter& p : params) before.push_back(p.value.to_floats());
    train::AdamW optimizer(params, {});
    try {
      train::restore_train_state(file, "fuzz/train_state", model, optimizer);
    } catch (const Error&) {
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].value.to_floats() != before[i]) std::abort();
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
