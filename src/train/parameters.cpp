#include <string>

#include "wgpt/train.h"

namespace wgpt::train {
namespace {

// Training updates the model's own storage: f32 master weights, row-major matrices.
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

}  // namespace

std::vector<Parameter> parameters(const model::Model& model) {
  const model::Weights& w = model.weights();
  require_trainable(model);
  if (w.token_embedding.size() != 1) {
    throw Error(
        "training needs the token table in one storage binding; this device splits it "
        "into " +
        std::to_string(w.token_embedding.size()) + " chunks");
  }
  // The same order as model::parameter_shapes, which names them.
  std::vector<Tensor> tensors = {w.token_embedding.front(), w.position_embedding};
  for (const model::LayerWeights& l : w.layers) {
    tensors.insert(tensors.end(), {l.ln1_gamma, l.ln1_beta, l.qkv_weight, l.qkv_bias,
                                   l.attn_proj_weight, l.attn_proj_bias, l.ln2_gamma, l.ln2_beta,
                                   l.fc_weight, l.fc_bias, l.mlp_proj_weight, l.mlp_proj_bias});
  }
  tensors.insert(tensors.end(), {w.final_gamma, w.final_beta});
  const std::vector<model::NamedShape> names = model::parameter_shapes(model.config());
  std::vector<Parameter> params;
  for (size_t i = 0; i < tensors.size(); ++i) {
    params.push_back({names[i].name, tensors[i], tensors[i].rank() >= 2});
  }
  return params;
}

}  // namespace wgpt::train
