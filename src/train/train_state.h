#pragma once
// A train_state.safetensors image, read and checked: what load_train_state and
// train_state_config do once the file is loaded, and what the train_state fuzzer drives with
// arbitrary bytes.

#include <string>

#include "wgpt/io.h"
#include "wgpt/train.h"

namespace wgpt::train {

// The model config a checkpoint was made with; throws wgpt::Error naming `source` when the file is
// not a wgpt training checkpoint or its config is malformed.
model::Config train_state_config(const io::TensorFile& file, const std::string& source);

// Copies the checkpoint's parameters into `model` and its moments into `optimizer`. Every tensor
// must be present with its parameter's shape and finite values, and every number of the metadata
// a plain decimal; otherwise a wgpt::Error names `source` and the part, and nothing is restored.
TrainState restore_train_state(const io::TensorFile& file, const std::string& source,
                               const model::Model& model, AdamW& optimizer);

}  // namespace wgpt::train
