#pragma once
// A GPT-2 block with everything but the attention fused into the products (the residual adds and
// the GELU in the matmuls), shared by the prompt's forward pass and the batched decode step: every
// part of a block is row-wise except the attention, which `attend` supplies — it takes the fused
// projection qkv [rows, 3C], stores the rows' keys and values in their caches and returns the
// attention's output [kept, C] for the last `kept` rows (all of them, or fewer when only those
// rows' outputs are wanted: the last block of a prompt whose last position alone is read); the
// block returns those rows. `row_invariant`: the products as ops::MatmulOptions says (a batched
// step's rows must not depend on each other).

#include <functional>

#include "wgpt/model.h"

namespace wgpt::model {

Tensor fused_block(const LayerWeights& weights, const Config& config, ops::Precision precision,
                   bool row_invariant, const Tensor& x,
                   const std::function<Tensor(const Tensor& qkv)>& attend);

}  // namespace wgpt::model
