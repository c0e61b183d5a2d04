#pragma once
// The step engine a server runs (ServerOptions::engine).

#include <memory>

#include "serve/step_engine.h"
#include "wgpt/model.h"
#include "wgpt/serve.h"

namespace wgpt::serve {

// `slots` slots on `model` (which must outlive the engine). Throws wgpt::Error when `batched` is
// asked of a model that cannot take it, naming why.
std::unique_ptr<StepEngine> make_step_engine(const model::Model& model, size_t slots,
                                             EngineChoice choice);

}  // namespace wgpt::serve
