// Model directories: config.json beside model.safetensors or model.fzm.
#include <fstream>

#include "wgpt/model.h"

namespace wgpt::model {

Model Model::load(const std::filesystem::path& model_dir, std::shared_ptr<gpu::Context> context,
                  std::optional<DType> weights) {
  if (!std::filesystem::is_directory(model_dir)) {
    throw Error("model directory " + model_dir.string() + " does not exist");
  }
  const Config config = Config::load(model_dir);
  for (const char* name : {"model.safetensors", "model.fzm"}) {
    const auto path = model_dir / name;
    if (std::filesystem::exists(path)) {
      return from_tensors(config, io::load_tensors(path), std::move(context), weights);
    }
  }
  throw Error(model_dir.string() + " holds neither model.safetensors nor model.fzm");
}

void Model::save(const std::filesystem::path& model_dir, io::Format format) const {
  std::filesystem::create_directories(model_dir);
  const auto config_path = model_dir / "config.json";
  const auto temporary = model_dir / "config.json.tmp";
  {
    std::ofstream file(temporary);
    file << config_.to_json();
    if (!file) throw Error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, config_path);
  const std::vector<io::TensorData> tensors = to_tensor_data();
  if (format == io::Format::fzm) {
    io::save_fzm(model_dir / "model.fzm", tensors);
  } else {
    io::save_safetensors(model_dir / "model.safetensors", tensors, {{"format", "pt"}});
  }
}

}  // namespace wgpt::model
