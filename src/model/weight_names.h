#pragma once
// HF's GPT-2 parameter names (unprefixed, as on the hub) and their shapes for a config.

#include <string>
#include <vector>

#include "wgpt/io.h"
#include "wgpt/model.h"

namespace wgpt::model {

struct NamedShape {
  std::string name;
  io::Shape shape;
};

// Every parameter of the model, in HF's order: wte, wpe, h.0.* … h.{L-1}.*, ln_f.*.
std::vector<NamedShape> parameter_shapes(const Config& config);

// Names HF checkpoints carry that are not parameters: causal-mask buffers and the tied LM head.
bool is_ignored_name(const std::string& name);

}  // namespace wgpt::model
