#pragma once
// Names HF GPT-2 checkpoints carry besides the parameters (model::parameter_shapes names those).

#include <string>

#include "wgpt/model.h"

namespace wgpt::model {

// Names HF checkpoints carry that are not parameters: causal-mask buffers and the tied LM head.
bool is_ignored_name(const std::string& name);

}  // namespace wgpt::model
