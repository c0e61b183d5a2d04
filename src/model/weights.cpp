// Building a Model's weights: from checkpoint tensors, from a seed, and back to named host tensors.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <new>
#include <numbers>
#include <numeric>
#include <set>
#include <string>
#include <string_view>

#include "model/weight_names.h"
#include "wgpt/model.h"

namespace wgpt::model {
namespace {

Shape to_shape(const io::Shape& shape) { return Shape(shape.begin(), shape.end()); }

// A parameter as read: its values, and the q4 groups they were dequantized from (an .fzm tensor).
struct Source {
  std::span<const float> values;
  const io::Q4Data* q4 = nullptr;
};

// Elements [first, first + numel(shape)) of `source` stored as `dtype`: a host tensor, or a GPU
// tensor written straight from the values (f32: no intermediate host copy) in `layout`. q4 keeps
// the file's own blocks when it has them.
Tensor place(const Source& source, size_t first, const Shape& shape, DType dtype,
             const std::shared_ptr<gpu::Context>& context, Layout layout = Layout::rows) {
  const std::span<const float> values = source.values.subspan(first, numel(shape));
  Tensor host;
  if (dtype == DType::f32 && layout == Layout::rows) {
    if (context) {
      Tensor tensor = Tensor::empty_gpu(context, shape);
      context->write(tensor.buffer(), tensor.byte_offset(), std::as_bytes(values));
      return tensor;
    }
    host = Tensor::from_floats(std::vector<float>(values.begin(), values.end()), shape);
  } else if (dtype == DType::q4 && source.q4 && source.q4->group_size == kQ4Block) {
    host = Tensor::from_q4(*source.q4, first, shape);
  } else {
    host = Tensor::from_floats(std::vector<float>(values.begin(), values.end()), shape, dtype);
  }
  return context ? host.to_gpu(context, layout) : host;
}

// The token table as row blocks that each fit the device's storage binding limit (a q4 block's
// rows start on a q4 block).
std::vector<Tensor> place_token_table(const Source& source, const Config& config, DType dtype,
                                      const std::shared_ptr<gpu::Context>& context) {
  const size_t rows = config.vocab_size, width = config.n_embd;
  size_t rows_per_block = rows;
  if (context) {
    const size_t limit = context->limits().max_storage_buffer_binding_size;
    const size_t granule = dtype == DType::q4 ? kQ4Block / std::gcd(width, kQ4Block) : 1;
    rows_per_block = std::min(rows, limit / storage_bytes(dtype, width) / granule * granule);
    rows_per_block = std::max(rows_per_block, granule);
  }
  std::vector<Tensor> blocks;
  for (size_t start = 0; start < rows; start += rows_per_block) {
    const size_t count = std::min(rows_per_block, rows - start);
    blocks.push_back(place(source, start * width, {count, width}, dtype, context));
  }
  return blocks;
}

// FNV-1a over the values' bits, a 32-bit word at a time, folded so every bit reaches the top.
uint64_t digest(std::span<const float> values) {
  uint64_t hash = 0xcbf29ce484222325ULL ^ values.size();
  for (float value : values) {
    hash = (hash ^ io::f32_bits(value)) * 0x100000001b3ULL;
    hash ^= hash >> 29;
  }
  return hash;
}

Weights assemble(const Config& config, const std::map<std::string, Source>& sources, DType dtype,
                 const std::shared_ptr<gpu::Context>& context, bool trainable) {
  std::map<std::string, io::Shape> shapes;
  for (const auto& [name, shape] : parameter_shapes(config)) shapes[name] = shape;
  // A layer's matrices may go to a GPU in column strips (matrix_layout_from_environment), where
  // their width allows; a model to train keeps them row-major.
  const bool strips =
      context && !trainable && matrix_layout_from_environment() == Layout::column_strips;
  auto get = [&](const std::string& name) {
    const bool matrix = is_matrix(name);
    const Shape shape = to_shape(shapes.at(name));
    const Layout layout =
        matrix && strips && fits_column_strips(dtype, shape) ? Layout::column_strips : Layout::rows;
    return place(sources.at(name), 0, shape, matrix ? dtype : DType::f32, context, layout);
  };
  Weights weights;
  weights.token_embedding = place_token_table(sources.at("wte.weight"), config, dtype, context);
  weights.token_table_digest = digest(sources.at("wte.weight").values);
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

std::string shape_text(const io::Shape& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

// The tensor of parameter `name`, under HF's prefixed or unprefixed name — not both.
const io::TensorInfo& find_parameter(const io::TensorIndex& tensors, const std::string& name) {
  const io::TensorInfo* prefixed = tensors.find("transformer." + name);
  const io::TensorInfo* plain = tensors.find(name);
  if (prefixed && plain) {
    throw Error("the checkpoint holds both 'transformer." + name + "' and '" + name +
                "': which one is the weight is ambiguous");
  }
  if (!prefixed && !plain) {
    throw Error("the checkpoint has no tensor '" + name + "' (nor 'transformer." + name + "')");
  }
  return prefixed ? *prefixed : *plain;
}

// NaN or infinity in a weight makes every later activation garbage, silently: refuse it here.
void require_finite(const std::string& name, std::span<const float> values) {
  const auto bad =
      std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
  if (bad == values.end()) return;
  throw Error("tensor '" + name + "' holds " + std::to_string(*bad) + " at element " +
              std::to_string(bad - values.begin()) + " of " + std::to_string(values.size()) +
              ": a damaged or diverged checkpoint (allow_non_finite, --allow-non-finite on the "
              "command line, loads it anyway)");
}

// HF checkpoints may carry the LM head, which GPT-2 ties to the token table: a copy of it.
void require_tied_head(const io::TensorData& head, std::span<const float> token_table) {
  const bool tied = !head.is_integer() && std::equal(head.floats().begin(), head.floats().end(),
                                                     token_table.begin(), token_table.end());
  if (!tied) {
    throw Error(
        "the checkpoint's lm_head.weight is not the token table wte.weight: wgpt runs "
        "GPT-2 with the LM head tied to it");
  }
}

// A tensor the model does not read means the config and the checkpoint disagree (more layers in
// the file than in config.json, say): say so rather than run a different model than was saved.
void require_all_used(const io::TensorFile& tensors, const std::set<std::string>& used,
                      std::span<const float> token_table) {
  std::vector<std::string> unused;
  for (const io::TensorData& tensor : tensors.tensors) {
    const std::string& name = tensor.name();
    if (name == "lm_head.weight") {
      require_tied_head(tensor, token_table);
    } else if (!used.count(name) && !is_ignored_name(name)) {
      unused.push_back(name);
    }
  }
  if (unused.empty()) return;
  std::string names;
  for (size_t i = 0; i < unused.size() && i < 5; ++i) names += (i ? ", '" : "'") + unused[i] + "'";
  throw Error("the checkpoint holds " + std::to_string(unused.size()) +
              " tensor(s) the model does not use (" + names + (unused.size() > 5 ? ", ..." : "") +
              "): does config.json describe this checkpoint?");
}

// Building weights allocates the whole model: too large a config is an error, not bad_alloc.
template <class Build>
Weights allocate(const Config& config, Build build) {
  try {
    return build();
  } catch (const std::bad_alloc&) {
    throw Error("not enough memory for a model of " + std::to_string(config.parameter_count()) +
                " parameters (" + std::to_string(config.parameter_count() * sizeof(float) >> 20) +
                " MiB of f32 weights)");
  }
}

}  // namespace

void check_checkpoint(const Config& config, const io::TensorIndex& tensors) {
  for (const auto& [name, shape] : parameter_shapes(config)) {
    const io::TensorInfo& found = find_parameter(tensors, name);
    if (io::is_integer(found.dtype))
      throw Error("tensor '" + name + "' holds integers, not weights");
    if (found.shape != shape) {
      throw Error("tensor '" + name + "' has shape " + shape_text(found.shape) +
                  " but the config needs " + shape_text(shape));
    }
  }
}

Model Model::from_tensors(const Config& config, const io::TensorFile& tensors,
                          std::shared_ptr<gpu::Context> context, LoadOptions options) {
  config.check("the model config");
  const io::TensorIndex index = tensors.index();
  check_checkpoint(config, index);
  std::map<std::string, Source> sources;
  std::set<std::string> used;
  bool all_q4 = true;
  for (const auto& [name, shape] : parameter_shapes(config)) {
    const io::TensorData& found = tensors.at(find_parameter(index, name).name);
    if (!options.allow_non_finite) require_finite(found.name(), found.floats());
    sources[name] = {found.floats(), found.q4()};
    all_q4 = all_q4 && found.q4() && found.q4()->group_size == kQ4Block;
    used.insert(found.name());
  }
  require_all_used(tensors, used, sources.at("wte.weight").values);
  const DType dtype = options.weights.value_or(context && all_q4 ? DType::q4 : DType::f32);
  // Assembled before the context moves into the Model: argument order is unspecified.
  Weights weights = allocate(
      config, [&] { return assemble(config, sources, dtype, context, options.trainable); });
  return Model(config, std::move(weights), std::move(context));
}

Model Model::random(const Config& config, uint64_t seed, std::shared_ptr<gpu::Context> context,
                    LoadOptions options) {
  config.check("the model config");
  constexpr float kStddev = 0.02f;
  const float residual_stddev = kStddev / std::sqrt(2.0f * static_cast<float>(config.n_layer));
  Weights assembled = allocate(config, [&] {
    SeededNormal normal(seed);
    std::map<std::string, std::vector<float>> storage;
    std::map<std::string, Source> sources;
    for (const auto& [name, shape] : parameter_shapes(config)) {
      size_t count = 1;
      for (int64_t d : shape) count *= static_cast<size_t>(d);
      std::vector<float> data(count, 0.0f);
      if (ends_with(name, "ln_1.weight") || ends_with(name, "ln_2.weight") ||
          name == "ln_f.weight") {
        std::fill(data.begin(), data.end(), 1.0f);
      } else if (ends_with(name, ".weight")) {
        const float stddev = ends_with(name, "c_proj.weight") ? residual_stddev : kStddev;
        for (float& v : data) v = normal.next(stddev);
      }
      sources[name] = {storage.emplace(name, std::move(data)).first->second};
    }
    return assemble(config, sources, options.weights.value_or(DType::f32), context,
                    options.trainable);
  });
  return Model(config, std::move(assembled), std::move(context));
}

size_t Model::weight_bytes() const {
  size_t bytes = weights_.position_embedding.byte_size() + weights_.final_gamma.byte_size() +
                 weights_.final_beta.byte_size();
  for (const Tensor& block : weights_.token_embedding) bytes += block.byte_size();
  for (const LayerWeights& l : weights_.layers) {
    for (const Tensor* t : {&l.ln1_gamma, &l.ln1_beta, &l.qkv_weight, &l.qkv_bias,
                            &l.attn_proj_weight, &l.attn_proj_bias, &l.ln2_gamma, &l.ln2_beta,
                            &l.fc_weight, &l.fc_bias, &l.mlp_proj_weight, &l.mlp_proj_bias}) {
      bytes += t->byte_size();
    }
  }
  return bytes;
}

DType default_weight_dtype(const gpu::Context* context) {
  return context && !context->adapter_info().is_cpu ? DType::f16 : DType::f32;
}

Layout matrix_layout_from_environment() {
  const char* value = std::getenv("WGPT_MATRIX_LAYOUT");
  const std::string_view text = value ? value : "";
  if (text.empty() || text == "strips") return Layout::column_strips;
  if (text == "rows") return Layout::rows;
  throw Error("WGPT_MATRIX_LAYOUT='" + std::string(text) + "' (expected rows or strips)");
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
