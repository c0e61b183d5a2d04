#include "serve/engine_choice.h"

#include <string>

#include "serve/batched_engine.h"
#include "serve/sequential_engine.h"
#include "wgpt/batch_decoder.h"

namespace wgpt::serve {

std::unique_ptr<StepEngine> make_step_engine(const model::Model& model, size_t slots,
                                             EngineChoice choice) {
  const bool batchable = model::BatchDecoder::supported(model, slots);
  if (choice == EngineChoice::batched && !batchable) {
    throw Error(
        "--engine batched needs the GPU backend, heads of at most 256 values and KV "
        "caches for " +
        std::to_string(slots) +
        " slots within the device's buffer limits; use --engine sequential or fewer "
        "--parallel slots");
  }
  if (choice == EngineChoice::sequential || !batchable) {
    return std::make_unique<SequentialEngine>(model, slots);
  }
  return std::make_unique<BatchedEngine>(model, slots);
}

}  // namespace wgpt::serve
