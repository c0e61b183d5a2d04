#include "model/fused_block.h"

namespace wgpt::model {

Tensor fused_block(const LayerWeights& w, const Config& config, ops::Precision precision,
                   bool row_invariant, const Tensor& x,
                   const std::function<Tensor(const Tensor& qkv)>& attend) {
  const float eps = config.layer_norm_epsilon;
  Tensor qkv =
      ops::matmul(ops::layernorm(x, w.ln1_gamma, w.ln1_beta, eps), w.qkv_weight,
                  {.bias = w.qkv_bias, .precision = precision, .row_invariant = row_invariant});
  const Tensor attended = attend(qkv);
  const size_t rows = x.dim(0), kept = attended.dim(0);
  const Tensor residual = kept == rows ? x : x.rows(rows - kept, kept);
  Tensor mid = ops::matmul(attended, w.attn_proj_weight,
                           {.bias = w.attn_proj_bias,
                            .residual = residual,
                            .precision = precision,
                            .row_invariant = row_invariant});
  Tensor hidden = ops::matmul(
      ops::layernorm(mid, w.ln2_gamma, w.ln2_beta, eps), w.fc_weight,
      {.bias = w.fc_bias, .gelu = true, .precision = precision, .row_invariant = row_invariant});
  return ops::matmul(hidden, w.mlp_proj_weight,
                     {.bias = w.mlp_proj_bias,
                      .residual = mid,
                      .precision = precision,
                      .row_invariant = row_invariant});
}

}  // namespace wgpt::model
