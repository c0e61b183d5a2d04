// Model directories: config.json beside model.safetensors, model.safetensors.index.json with its
// shards, or model.fzm.

#include "model/model_dir.h"

#include "model/weight_names.h"

namespace wgpt::model {

StoredModel read_model_dir(const std::filesystem::path& dir) {
  const Config config = Config::load(dir);
  if (std::filesystem::exists(dir / "model.safetensors")) {
    return {config, io::load_tensors(dir / "model.safetensors")};
  }
  if (std::filesystem::exists(dir / "model.safetensors.index.json")) {
    return {config, io::load_safetensors_index(dir / "model.safetensors.index.json")};
  }
  if (std::filesystem::exists(dir / "model.fzm"))
    return {config, io::load_tensors(dir / "model.fzm")};
  throw Error(dir.string() +
              " holds neither model.safetensors, model.safetensors.index.json nor model.fzm" +
              (std::filesystem::exists(dir / "pytorch_model.bin")
                   ? " (pytorch_model.bin is PyTorch's pickle format, which wgpt does not read)"
                   : ""));
}

void write_model_dir(const Model& model, const std::filesystem::path& dir, io::Format format,
                     io::DType matrices) {
  if (format == io::Format::gguf) {
    throw Error("a GGUF file holds its vocabulary too: write it with model::save_model");
  }
  const bool fzm = format == io::Format::fzm;
  if (fzm ? matrices != io::DType::f32
          : matrices != io::DType::f32 && matrices != io::DType::f16 &&
                matrices != io::DType::bf16) {
    throw Error(std::string(fzm ? "fzm stores every tensor as q4"
                                : "safetensors stores f32, f16 "
                                  "or bf16") +
                ", not matrices in " + std::string(io::dtype_name(matrices)));
  }
  std::filesystem::create_directories(dir);
  io::write_file_atomically(dir / "config.json", model.config().to_json());
  std::vector<io::TensorData> tensors = model.to_tensor_data();
  if (fzm) {
    io::save_fzm(dir / "model.fzm", tensors);
    return;
  }
  for (io::TensorData& tensor : tensors) {
    if (is_matrix(tensor.name())) tensor = tensor.stored_as(matrices);
  }
  io::save_safetensors(dir / "model.safetensors", tensors, {{"format", "pt"}});
}

Model Model::load(const std::filesystem::path& path, std::shared_ptr<gpu::Context> context) {
  const StoredModel stored = load_stored(path);
  return from_tensors(stored.config, stored.tensors, std::move(context));
}

void Model::save(const std::filesystem::path& model_dir, io::Format format) const {
  write_model_dir(*this, model_dir, format, io::DType::f32);
}

}  // namespace wgpt::model
