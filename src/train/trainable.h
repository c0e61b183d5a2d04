#pragma once
// What a model must be for training to update it: f32 master weights, row-major matrices.

#include "wgpt/model.h"

namespace wgpt::train {

// Throws wgpt::Error, saying how to load the model instead, when `model` holds packed weights or
// matrices in column strips (a GPU model loaded without LoadOptions::trainable).
void require_trainable(const model::Model& model);

}  // namespace wgpt::train
