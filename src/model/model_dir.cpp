// Model directories: config.json beside model.safetensors or model.fzm.
#include "wgpt/model.h"

namespace wgpt::model {

Model Model::load(const std::filesystem::path& model_dir, std::shared_ptr<gpu::Context> context,
                  LoadOptions options) {
  std::error_code error;
  const auto status = std::filesystem::status(model_dir, error);
  if (!std::filesystem::exists(status)) {
    throw Error("model directory " + model_dir.string() + " does not exist");
  }
  if (!std::filesystem::is_directory(status)) {
    throw Error(model_dir.string() +
                " is not a directory: give the model directory that holds config.json");
  }
  // config.json and the weights as one version, should a writer be replacing them.
  const io::DirectoryReader reading(model_dir);
  const Config config = Config::load(model_dir);
  std::vector<std::filesystem::path> weights;
  for (const char* name : {"model.safetensors", "model.fzm"}) {
    if (std::filesystem::exists(model_dir / name, error)) weights.push_back(model_dir / name);
  }
  if (weights.empty()) {
    throw Error(model_dir.string() + " holds neither model.safetensors nor model.fzm");
  }
  if (weights.size() > 1) {
    throw Error(model_dir.string() +
                " holds both model.safetensors and model.fzm: which one to load is ambiguous "
                "(remove one)");
  }
  const io::TensorFile tensors = io::load_tensors(weights[0]);
  try {
    return from_tensors(config, tensors, std::move(context), options);
  } catch (const Error& e) {
    throw Error(weights[0].string() + ": " + e.what());
  }
}

void Model::save(const std::filesystem::path& model_dir, io::Format format) const {
  io::DirectoryUpdate update(model_dir);
  save(update, format);
  update.commit();
}

void Model::save(io::DirectoryUpdate& update, io::Format format) const {
  update.add_text("config.json", config_.to_json());
  const std::vector<io::TensorData> tensors = to_tensor_data();
  if (format == io::Format::fzm) {
    update.add_fzm("model.fzm", tensors);
    update.remove("model.safetensors");
  } else {
    update.add_safetensors("model.safetensors", tensors, {{"format", "pt"}});
    update.remove("model.fzm");
  }
}

}  // namespace wgpt::model
