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
  // On a software adapter (llvmpipe) the batched step's tiled products cost more than the fused
  // B = 1 kernels do for every row (`wgpt bench --batch-decode` there: 0.06× at one row, 0.3× at
  // eight), so `auto` keeps the batched engine for hardware GPUs.
  // With one slot nothing is ever batched: the fused B = 1 path is the faster one there too.
  const bool software = model.on_gpu() && model.context()->adapter_info().is_cpu;
  if (choice == EngineChoice::sequential || !batchable ||
      (choice == EngineChoice::automatic && (software || slots == 1))) {
    return std::make_unique<SequentialEngine>(model, slots);
  }
  return std::make_unique<BatchedEngine>(model, slots);
}

}  // namespace wgpt::serve
