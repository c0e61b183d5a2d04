// Building a Model's weights: from checkpoint tensors, from a seed, and back to named host tensors.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

#include "model/weight_names.h"
#include "wgpt/model.h"

namespace wgpt::model {
namespace {

Shape to_shape(const io::Shape& shape) { return Shape(shape.begin(), shape.end()); }

// A host tensor, or a GPU tensor written straight from `values` (no intermediate host copy).
Tensor place(std::span<const float> values, const io::Shape& shape,
             const std::shared_ptr<gpu::Context>& context) {
  if (!context)
    return Tensor::from_floats(std::vector<float>(values.begin(), values.end()), to_shape(shape));
  Tensor tensor = Tensor::empty_gpu(context, to_shape(shape));
  context->write(tensor.buffer(), tensor.offset() * sizeof(float), std::as_bytes(values));
  return tensor;
}

// The token table as row blocks that each fit the device's storage binding limit.
std::vector<Tensor> place_token_table(std::span<const float> values, const Config& config,
                                      const std::shared_ptr<gpu::Context>& context) {
  const size_t rows = config.vocab_size, width = config.n_embd;
  size_t rows_per_block = rows;
  if (context) {
    const size_t limit = context->limits().max_storage_buffer_binding_size;
    rows_per_block = std::max<size_t>(1, std::min(rows, limit / (width * sizeof(float))));
  }
  std::vector<Tensor> blocks;
  for (size_t start = 0; start < rows; start += rows_per_block) {
    const size_t count = std::min(rows_per_block, rows - start);
    blocks.push_back(place(values.subspan(start * width, count * width),
                           {static_cast<int64_t>(count), static_cast<int64_t>(width)}, context));
  }
  return blocks;
}

Weights assemble(const Config& config, const std::map<std::string, std::span<const float>>& values,
                 const std::shared_ptr<gpu::Context>& context) {
  std::map<std::string, io::Shape> shapes;
  for (const auto& [name, shape] : parameter_shapes(config)) shapes[name] = shape;
  auto get = [&](const std::string& name) {
    return place(values.at(name), shapes.at(name), context);
  };
  Weights weights;
  weights.token_embedding = place_token_table(values.at("wte.weight"), config, context);
  weights.position_embedding = get("wpe.weight");
  for (size_t layer = 0; layer < config.n_layer; ++layer) {
    const std::string p = "h." + std::to_string(layer) + ".";
    weights.layers.push_back({
        get(p + "ln_1.weight"),
        get(p + "ln_1.bias"),
        get(p + "attn.c_attn.weight"),
        get(p + "attn.c_attn.bias"),
        get(p + "attn.c_proj.weight"),
        get(p + "attn.c_proj.bias"),
        get(p + "ln_2.weight"),
        get(p + "ln_2.bias"),
        get(p + "mlp.c_fc.weight"),
        get(p + "mlp.c_fc.bias"),
        get(p + "mlp.c_proj.weight"),
        get(p + "mlp.c_proj.bias"),
    });
  }
  weights.final_gamma = get("ln_f.weight");
  weights.final_beta = get("ln_f.bias");
  return weights;
}

// splitmix64: a tiny generator whose sequence is the same under every standard library (unlike
// std::normal_distribution), so a seed names the same weights natively and in the browser.
class SeededNormal {
 public:
  explicit SeededNormal(uint64_t seed) : state_(seed) {}
  float next(float stddev) {
    if (has_spare_) {
      has_spare_ = false;
      return spare_ * stddev;
    }
    // Box–Muller on two uniforms in (0, 1].
    const double u1 = (static_cast<double>(bits() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(bits() >> 11) * 0x1.0p-53;
    const double radius = std::sqrt(-2.0 * std::log(u1));
    spare_ = static_cast<float>(radius * std::sin(2.0 * std::numbers::pi * u2));
    has_spare_ = true;
    return static_cast<float>(radius * std::cos(2.0 * std::numbers::pi * u2)) * stddev;
  }

 private:
  uint64_t bits() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t state_;
  float spare_ = 0;
  bool has_spare_ = false;
};

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Model Model::from_tensors(const Config& config, const io::TensorFile& tensors,
                          std::shared_ptr<gpu::Context> context) {
  std::map<std::string, std::span<const float>> values;
  for (const auto& [name, shape] : parameter_shapes(config)) {
    const io::TensorData* found = tensors.find("transformer." + name);
    if (!found) found = tensors.find(name);
    if (!found)
      throw Error("checkpoint has no tensor '" + name + "' (nor 'transformer." + name + "')");
    if (found->is_integer()) throw Error("tensor '" + name + "' holds integers, not weights");
    if (found->shape() != shape) {
      auto text = [](const io::Shape& s) {
        std::string out = "[";
        for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
        return out + "]";
      };
      throw Error("tensor '" + name + "' has shape " + text(found->shape()) +
                  " but the config needs " + text(shape));
    }
    values[name] = found->floats();
  }
  // Assembled before the context moves into the Model: argument order is unspecified.
  Weights weights = assemble(config, values, context);
  return Model(config, std::move(weights), std::move(context));
}

Model Model::random(const Config& config, uint64_t seed, std::shared_ptr<gpu::Context> context) {
  constexpr float kStddev = 0.02f;
  const float residual_stddev = kStddev / std::sqrt(2.0f * static_cast<float>(config.n_layer));
  SeededNormal normal(seed);
  std::map<std::string, std::vector<float>> storage;
  std::map<std::string, std::span<const float>> values;
  for (const auto& [name, shape] : parameter_shapes(config)) {
    size_t count = 1;
    for (int64_t d : shape) count *= static_cast<size_t>(d);
    std::vector<float> data(count, 0.0f);
    if (ends_with(name, "ln_1.weight") || ends_with(name, "ln_2.weight") || name == "ln_f.weight") {
      std::fill(data.begin(), data.end(), 1.0f);
    } else if (ends_with(name, ".weight")) {
      const float stddev = ends_with(name, "c_proj.weight") ? residual_stddev : kStddev;
      for (float& v : data) v = normal.next(stddev);
    }
    values[name] = storage.emplace(name, std::move(data)).first->second;
  }
  Weights weights = assemble(config, values, context);
  return Model(config, std::move(weights), std::move(context));
}

std::vector<io::TensorData> Model::to_tensor_data() const {
  std::vector<Tensor> ordered;
  std::vector<float> table;
  for (const Tensor& block : weights_.token_embedding) {
    std::vector<float> rows = block.to_floats();
    table.insert(table.end(), rows.begin(), rows.end());
  }
  ordered.push_back(weights_.position_embedding);
  for (const LayerWeights& l : weights_.layers) {
    ordered.insert(ordered.end(), {l.ln1_gamma, l.ln1_beta, l.qkv_weight, l.qkv_bias,
                                   l.attn_proj_weight, l.attn_proj_bias, l.ln2_gamma, l.ln2_beta,
                                   l.fc_weight, l.fc_bias, l.mlp_proj_weight, l.mlp_proj_bias});
  }
  ordered.push_back(weights_.final_gamma);
  ordered.push_back(weights_.final_beta);

  const std::vector<NamedShape> shapes = parameter_shapes(config_);
  std::vector<io::TensorData> out;
  out.push_back(io::TensorData::from_floats(shapes[0].name, shapes[0].shape, std::move(table)));
  for (size_t i = 0; i < ordered.size(); ++i) {
    out.push_back(io::TensorData::from_floats(shapes[i + 1].name, shapes[i + 1].shape,
                                              ordered[i].to_floats()));
  }
  return out;
}

}  // namespace wgpt::model
