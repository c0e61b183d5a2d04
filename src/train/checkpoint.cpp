// train_state.safetensors: parameters, AdamW moments and the loop's state in one atomic file.
#include <cstring>
#include <string>

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
                            const std::filesystem::path& path) {
  auto found = file.metadata.find(key);
  if (found == file.metadata.end()) {
    throw Error(path.string() + " is not a wgpt training checkpoint (no '" + key + "')");
  }
  return found->second;
}

io::TensorFile load(const std::filesystem::path& dir) {
  const auto path = dir / kFileName;
  if (!std::filesystem::exists(path)) {
    throw Error("no checkpoint to resume: " + path.string() + " does not exist");
  }
  io::TensorFile file = io::load_safetensors(path);
  if (metadata(file, "format", path) != kFormat) {
    throw Error(path.string() + " is a checkpoint of another format (" +
                metadata(file, "format", path) + ")");
  }
  return file;
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

void save_train_state(const std::filesystem::path& dir, const model::Model& model,
                      const AdamW& optimizer, const TrainState& state) {
  const std::vector<Parameter> params = parameters(model);
  std::vector<io::TensorData> tensors;
  for (size_t i = 0; i < params.size(); ++i) {
    tensors.push_back(host_tensor("param." + params[i].name, params[i].value));
    tensors.push_back(host_tensor("adam_m." + params[i].name, optimizer.first_moments()[i]));
    tensors.push_back(host_tensor("adam_v." + params[i].name, optimizer.second_moments()[i]));
  }
  io::save_safetensors(dir / kFileName, tensors,
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

model::Config train_state_config(const std::filesystem::path& dir) {
  const io::TensorFile file = load(dir);
  return model::Config::from_json(metadata(file, "config", dir / kFileName),
                                  (dir / kFileName).string());
}

TrainState load_train_state(const std::filesystem::path& dir, const model::Model& model,
                            AdamW& optimizer) {
  const auto path = dir / kFileName;
  const io::TensorFile file = load(dir);
  const model::Config saved =
      model::Config::from_json(metadata(file, "config", path), path.string());
  if (!same_shape(saved, model.config())) {
    throw Error("cannot resume: the checkpoint in " + dir.string() + " is a model of " +
                describe(saved) + ", but this run's model has " + describe(model.config()));
  }
  const std::vector<Parameter> params = parameters(model);
  std::vector<Tensor> m, v;
  for (const Parameter& p : params) {
    const io::TensorData& value = file.at("param." + p.name);
    if (value.numel() != p.value.numel())
      throw Error(path.string() + ": '" + p.name + "' is damaged");
    assign(p.value, value.floats());
    m.push_back(host_copy(file.at("adam_m." + p.name)));
    v.push_back(host_copy(file.at("adam_v." + p.name)));
  }
  // size_t is 32 bits in the browser build: the casts make the narrowing explicit.
  optimizer.restore(static_cast<size_t>(std::stoull(metadata(file, "optimizer_steps", path))), m,
                    v);
  return {static_cast<size_t>(std::stoull(metadata(file, "step", path))),
          std::stoull(metadata(file, "sampler_state", path)),
          std::stod(metadata(file, "elapsed_s", path))};
}

}  // namespace wgpt::train
