#include "train/trainable.h"

#include <string>

namespace wgpt::train {

void require_trainable(const model::Model& model) {
  if (model.weight_dtype() != DType::f32) {
    throw Error(std::string("training keeps f32 master weights; this model holds ") +
                to_string(model.weight_dtype()) + " weights (load it with f32 weights)");
  }
  if (model.matrix_layout() != Layout::rows) {
    throw Error(
        "training updates the weight matrices in place and multiplies by their transposes; this "
        "model holds them in column strips for decoding (load it with LoadOptions::trainable)");
  }
}

}  // namespace wgpt::train
