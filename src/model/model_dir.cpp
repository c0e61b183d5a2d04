// Model directories: config.json beside model.safetensors, model.safetensors.index.json with its
// shards, or model.fzm.

#include "model/model_dir.h"

#include "model/weight_names.h"

namespace wgpt::model {
namespace {

// The one weights file of `dir`: two of them make which one is meant ambiguous.
std::filesystem::path weights_file(const std::filesystem::path& dir) {
  std::error_code error;
  std::vector<std::filesystem::path> found;
  for (const char* name : {"model.safetensors", "model.safetensors.index.json", "model.fzm"}) {
    if (std::filesystem::exists(dir / name, error)) found.push_back(dir / name);
  }
  if (found.empty()) {
    throw Error(dir.string() +
                " holds neither model.safetensors, model.safetensors.index.json nor model.fzm" +
                (std::filesystem::exists(dir / "pytorch_model.bin", error)
                     ? " (pytorch_model.bin is PyTorch's pickle format, which wgpt does not read)"
                     : ""));
  }
  if (found.size() > 1) {
    throw Error(dir.string() + " holds both " + found[0].filename().string() + " and " +
                found[1].filename().string() + ": which one to load is ambiguous (remove one)");
  }
  return found[0];
}

}  // namespace

StoredModel read_model_dir(const std::filesystem::path& dir) {
  std::error_code error;
  const auto status = std::filesystem::status(dir, error);
  if (!std::filesystem::exists(status)) {
    throw Error("model directory " + dir.string() + " does not exist");
  }
  if (!std::filesystem::is_directory(status)) {
    throw Error(dir.string() +
                " is not a directory: give the model directory that holds config.json");
  }
  // config.json and the weights as one version, should a writer be replacing them.
  const io::DirectoryReader reading(dir);
  const Config config = Config::load(dir);
  const std::filesystem::path weights = weights_file(dir);
  if (weights.filename() == "model.safetensors.index.json") {
    return {config, io::load_safetensors_index(weights)};
  }
  return {config, io::load_tensors(weights)};
}

void write_model_dir(const Model& model, const std::filesystem::path& dir, io::Format format,
                     io::DType matrices) {
  io::DirectoryUpdate update(dir);
  add_model_files(model, update, format, matrices);
  update.commit();
}

void add_model_files(const Model& model, io::DirectoryUpdate& update, io::Format format,
                     io::DType matrices) {
  if (format == io::Format::gguf) {
    throw Error("a GGUF file holds its vocabulary too: write it with model::save_model");
  }
  const bool fzm = format == io::Format::fzm;
  if (fzm ? matrices != io::DType::f32
          : matrices != io::DType::f32 && matrices != io::DType::f16 &&
                matrices != io::DType::bf16) {
    throw Error(
        std::string(fzm ? "fzm stores every tensor as q4" : "safetensors stores f32, f16 or bf16") +
        ", not matrices in " + std::string(io::dtype_name(matrices)));
  }
  update.add_text("config.json", model.config().to_json());
  std::vector<io::TensorData> tensors = model.to_tensor_data();
  if (fzm) {
    update.add_fzm("model.fzm", tensors);
    update.remove("model.safetensors");
  } else {
    for (io::TensorData& tensor : tensors) {
      if (is_matrix(tensor.name())) tensor = tensor.stored_as(matrices);
    }
    update.add_safetensors("model.safetensors", tensors, {{"format", "pt"}});
    update.remove("model.fzm");
  }
  // A sharded checkpoint this model replaces would make the directory ambiguous.
  update.remove("model.safetensors.index.json");
}

Model Model::load(const std::filesystem::path& path, std::shared_ptr<gpu::Context> context,
                  LoadOptions options) {
  const StoredModel stored = load_stored(path);
  try {
    return from_tensors(stored.config, stored.tensors, std::move(context), options);
  } catch (const Error& e) {
    throw Error(path.string() + ": " + e.what());
  }
}

void Model::save(const std::filesystem::path& model_dir, io::Format format) const {
  write_model_dir(*this, model_dir, format, io::DType::f32);
}

void Model::save(io::DirectoryUpdate& update, io::Format format) const {
  add_model_files(*this, update, format, io::DType::f32);
}

}  // namespace wgpt::model
