#include "model/weight_names.h"

namespace wgpt::model {

std::vector<NamedShape> parameter_shapes(const Config& config) {
  const auto c = static_cast<int64_t>(config.n_embd);
  std::vector<NamedShape> shapes = {
      {"wte.weight", {static_cast<int64_t>(config.vocab_size), c}},
      {"wpe.weight", {static_cast<int64_t>(config.n_ctx), c}},
  };
  for (size_t layer = 0; layer < config.n_layer; ++layer) {
    const std::string p = "h." + std::to_string(layer) + ".";
    shapes.insert(shapes.end(), {
                                    {p + "ln_1.weight", {c}},
                                    {p + "ln_1.bias", {c}},
                                    {p + "attn.c_attn.weight", {c, 3 * c}},
                                    {p + "attn.c_attn.bias", {3 * c}},
                                    {p + "attn.c_proj.weight", {c, c}},
                                    {p + "attn.c_proj.bias", {c}},
                                    {p + "ln_2.weight", {c}},
                                    {p + "ln_2.bias", {c}},
                                    {p + "mlp.c_fc.weight", {c, 4 * c}},
                                    {p + "mlp.c_fc.bias", {4 * c}},
                                    {p + "mlp.c_proj.weight", {4 * c, c}},
                                    {p + "mlp.c_proj.bias", {c}},
                                });
  }
  shapes.push_back({"ln_f.weight", {c}});
  shapes.push_back({"ln_f.bias", {c}});
  return shapes;
}

namespace {

bool ends_with(const std::string& name, const std::string& suffix) {
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool is_ignored_name(const std::string& name) {
  return ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias") ||
         name == "lm_head.weight";
}

bool is_matrix(const std::string& name) {
  return name == "wte.weight" || ends_with(name, ".c_attn.weight") ||
         ends_with(name, ".c_proj.weight") || ends_with(name, ".c_fc.weight");
}

}  // namespace wgpt::model
