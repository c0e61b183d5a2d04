// train_state.safetensors: parameters, AdamW moments and the loop's state in one atomic file.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "train/train_state.h"
#include "wgpt/io.h"
#include "wgpt/train.h"

namespace wgpt::train {
namespace {

constexpr const char* kFileName = "train_state.safetensors";
constexpr const char* kFormat = "wgpt-train-state/1";

io::TensorData host_tensor(const std::string& name, const Tensor& t) {
  return io::TensorData::from_floats(name, io::Shape(t.shape().begin(), t.shape().end()),
                                     t.to_floats());
}

std::string describe(const model::Config& c) {
  return std::to_string(c.n_layer) + " layers, " + std::to_string(c.n_head) + " heads, " +
         std::to_string(c.n_embd) + " wide, " + std::to_string(c.n_ctx) + " positions, " +
         std::to_string(c.vocab_size) + " tokens";
}

bool same_shape(const model::Config& a, const model::Config& b) {
  return a.n_layer == b.n_layer && a.n_head == b.n_head && a.n_embd == b.n_embd &&
         a.n_ctx == b.n_ctx && a.vocab_size == b.vocab_size;
}

const std::string& metadata(const io::TensorFile& file, const std::string& key,
                            const std::string& source) {
  auto found = file.metadata.find(key);
  if (found == file.metadata.end()) {
    throw Error(source + " is not a wgpt training checkpoint (no '" + key + "')");
  }
  return found->second;
}

// A count of the metadata: decimal digits only, within uint64 (never stoull's "invalid argument").
uint64_t metadata_count(const io::TensorFile& file, const std::string& key,
                        const std::string& source) {
  const std::string& text = metadata(file, key, source);
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw Error(source + ": the checkpoint's '" + key + "' is \"" + text.substr(0, 40) +
                "\", not a whole number (the file is damaged)");
  }
  return value;
}

double metadata_seconds(const io::TensorFile& file, const std::string& key,
                        const std::string& source) {
  const std::string& text = metadata(file, key, source);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value) || value < 0) {
    throw Error(source + ": the checkpoint's '" + key + "' is \"" + text.substr(0, 40) +
                "\", not a number of seconds (the file is damaged)");
  }
  return value;
}

// A tensor of the checkpoint that must have `shape` and finite values.
const io::TensorData& state_tensor(const io::TensorFile& file, const std::string& name,
                                   const Shape& shape, const std::string& source) {
  const io::TensorData* tensor = file.find(name);
  if (!tensor) throw Error(source + ": the checkpoint has no tensor '" + name + "'");
  if (tensor->is_integer() || tensor->shape() != io::Shape(shape.begin(), shape.end())) {
    throw Error(source + ": the checkpoint's '" + name + "' is not a float tensor of shape " +
                to_string(shape) + " (the file is damaged)");
  }
  const auto values = tensor->floats();
  if (!std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); })) {
    throw Error(source + ": the checkpoint's '" + name + "' holds NaN or infinity");
  }
  return *tensor;
}

io::TensorFile load(const std::filesystem::path& dir) {
  const auto path = dir / kFileName;
  if (!std::filesystem::exists(path)) {
    throw Error("no checkpoint to resume: " + path.string() + " does not exist");
  }
  return io::load_safetensors(path);
}

// Overwrites a parameter's elements in place, on its device.
void assign(const Tensor& target, std::span<const float> values) {
  if (target.is_gpu()) {
    target.context()->write(target.buffer(), target.offset() * sizeof(float),
                            std::as_bytes(values));
  } else {
    std::memcpy(target.floats().data(), values.data(), values.size_bytes());
  }
}

Tensor host_copy(const io::TensorData& data) {
  return Tensor::from_floats(std::vector<float>(data.floats().begin(), data.floats().end()),
                             Shape(data.shape().begin(), data.shape().end()));
}

}  // namespace

void save_train_state(io::DirectoryUpdate& update, const model::Model& model,
                      const AdamW& optimizer, const TrainState& state) {
  const std::vector<Parameter> params = parameters(model);
  std::vector<io::TensorData> tensors;
  for (size_t i = 0; i < params.size(); ++i) {
    tensors.push_back(host_tensor("param." + params[i].name, params[i].value));
    tensors.push_back(host_tensor("adam_m." + params[i].name, optimizer.first_moments()[i]));
    tensors.push_back(host_tensor("adam_v." + params[i].name, optimizer.second_moments()[i]));
  }
  update.add_safetensors(kFileName, tensors,
                         {{"format", kFormat},
                          {"config", model.config().to_json()},
                          {"step", std::to_string(state.step)},
                          {"optimizer_steps", std::to_string(optimizer.steps_taken())},
                          {"sampler_state", std::to_string(state.sampler_state)},
                          {"elapsed_s", std::to_string(state.elapsed_s)}});
}

bool has_train_state(const std::filesystem::path& dir) {
  return std::filesystem::exists(dir / kFileName);
}

model::Config train_state_config(const io::TensorFile& file, const std::string& source) {
  if (metadata(file, "format", source) != kFormat) {
    throw Error(source + " is a checkpoint of another format (" +
                metadata(file, "format", source).substr(0, 40) + ")");
  }
  return model::Config::from_json(metadata(file, "config", source), source);
}

model::Config train_state_config(const std::filesystem::path& dir) {
  return train_state_config(load(dir), (dir / kFileName).string());
}

TrainState restore_train_state(const io::TensorFile& file, const std::string& source,
                               const model::Model& model, AdamW& optimizer) {
  const model::Config saved = train_state_config(file, source);
  if (!same_shape(saved, model.config())) {
    throw Error("cannot resume: the checkpoint " + source + " is a model of " + describe(saved) +
                ", but this run's model has " + describe(model.config()));
  }
  // Everything is read and checked before anything is assigned: a damaged file changes nothing.
  // size_t is 32 bits in the browser build: the casts make the narrowing explicit.
  const TrainState state{static_cast<size_t>(metadata_count(file, "step", source)),
                         metadata_count(file, "sampler_state", source),
                         metadata_seconds(file, "elapsed_s", source)};
  const auto optimizer_steps = static_cast<size_t>(metadata_count(file, "optimizer_steps", source));
  const std::vector<Parameter> params = parameters(model);
  std::vector<const io::TensorData*> values;
  std::vector<Tensor> m, v;
  for (const Parameter& p : params) {
    values.push_back(&state_tensor(file, "param." + p.name, p.value.shape(), source));
    m.push_back(host_copy(state_tensor(file, "adam_m." + p.name, p.value.shape(), source)));
    v.push_back(host_copy(state_tensor(file, "adam_v." + p.name, p.value.shape(), source)));
  }
  for (size_t i = 0; i < params.size(); ++i) assign(params[i].value, values[i]->floats());
  optimizer.restore(optimizer_steps, m, v);
  return state;
}

TrainState load_train_state(const std::filesystem::path& dir, const model::Model& model,
                            AdamW& optimizer) {
  return restore_train_state(load(dir), (dir / kFileName).string(), model, optimizer);
}

}  // namespace wgpt::train
