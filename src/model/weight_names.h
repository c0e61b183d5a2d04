#pragma once
// What HF GPT-2 names mean beyond model::parameter_shapes: names that are not parameters, and
// which parameters are matrices.

#include <string>

#include "wgpt/model.h"

namespace wgpt::model {

// Names HF checkpoints carry that are not parameters: causal-mask buffers and the tied LM head.
bool is_ignored_name(const std::string& name);

// The matrices among the parameters (wte and each block's four products): what a checkpoint may
// store in 16 bits or quantized while biases, LayerNorm parameters and wpe stay f32.
bool is_matrix(const std::string& name);

}  // namespace wgpt::model
