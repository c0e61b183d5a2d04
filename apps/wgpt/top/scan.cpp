#include "top/scan.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace wgpt::top {
namespace {

constexpr int kMaxDepth = 4;

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file) throw Error("cannot read " + path.string());
  return text.str();
}

std::string format_of(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".safetensors") return "safetensors";
  if (extension == ".fzm") return "fzm";
  if (extension == ".gguf") return "gguf";
  return {};
}

bool skipped_folder(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.starts_with(".") || name == "node_modules" || name == "target" || name == "dist";
}

// `stem.NAME` beside the checkpoint, else `NAME` (a folder of several checkpoints, or HF's layout).
std::filesystem::path sidecar(const std::filesystem::path& weights, const std::string& name) {
  const auto dir = weights.parent_path();
  for (const auto& candidate : {dir / (weights.stem().string() + "." + name), dir / name}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(candidate, error)) return candidate;
  }
  return {};
}

// Reads the config and the tokenizer and checks them against the checkpoint; throws the verdict.
void judge(ScannedModel& model, const io::TensorIndex& index) {
  model.config_path = sidecar(model.weights, "config.json");
  if (model.config_path.empty()) throw Error("no config.json beside it");
  model.config = model::Config::from_json(read_text(model.config_path), model.config_path.string());
  model::check_checkpoint(*model.config, index);
  model.tokenizer_files =
      tokenizer::TokenizerFiles::find(model.weights.parent_path(), model.weights.stem().string());
  if (model.tokenizer_files.empty())
    throw Error("no tokenizer (vocab.json, tokenizer.json) beside it");
  const auto tokenizer = tokenizer::load_tokenizer(model.tokenizer_files);
  model.tokenizer_kind = std::string(tokenizer->kind());
  if (tokenizer->vocab_size() > model.config->vocab_size) {
    throw Error("the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                " tokens but the model only " + std::to_string(model.config->vocab_size));
  }
}

}  // namespace

ScannedModel inspect(const std::filesystem::path& weights, std::string name) {
  ScannedModel model;
  model.weights = weights;
  model.name = std::move(name);
  model.format = format_of(weights);
  std::error_code error;
  model.bytes = std::filesystem::file_size(weights, error);
  if (model.format == "gguf") {
    model.problem = "GGUF is not supported yet";
    return model;
  }
  try {
    io::TensorIndex index = io::read_index(weights);
    for (const io::TensorInfo& tensor : index.tensors) {
      uint64_t count = 1;
      for (int64_t d : tensor.shape) count *= static_cast<uint64_t>(d);
      model.parameters += count;
    }
    model.tensors = index.tensors;
    judge(model, index);
  } catch (const std::exception& failure) {
    model.problem = failure.what();
  }
  return model;
}

std::vector<ScannedModel> scan(const std::vector<std::filesystem::path>& roots,
                               const std::function<void(const ScannedModel&)>& on_found) {
  std::vector<ScannedModel> found;
  auto take = [&](const std::filesystem::path& path, const std::filesystem::path& root) {
    found.push_back(inspect(path, path.lexically_relative(root).string()));
    if (on_found) on_found(found.back());
  };
  for (const std::filesystem::path& root : roots) {
    std::error_code error;
    if (std::filesystem::is_regular_file(root, error)) {
      take(root, root.parent_path());
      continue;
    }
    if (!std::filesystem::is_directory(root, error)) {
      throw Error(root.string() + " is neither a folder nor a file");
    }
    std::filesystem::recursive_directory_iterator it(
        root, std::filesystem::directory_options::skip_permission_denied, error);
    for (; !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory(error)) {
        if (it.depth() >= kMaxDepth || skipped_folder(it->path())) it.disable_recursion_pending();
      } else if (!format_of(it->path()).empty() && it->is_regular_file(error)) {
        take(it->path(), root);
      }
    }
  }
  std::sort(found.begin(), found.end(),
            [](const ScannedModel& a, const ScannedModel& b) { return a.weights < b.weights; });
  return found;
}

std::string list_line(const ScannedModel& model) {
  const auto& config = model.config;
  auto known = [](bool is_known, const std::string& text) { return is_known ? text : "-"; };
  std::string line = model.name + "\t" + std::to_string(model.bytes) + "\t" +
                     known(!model.tensors.empty(), std::to_string(model.parameters)) + "\t" +
                     known(!model.tensors.empty(), std::to_string(model.tensors.size())) + "\t";
  line += config ? std::to_string(config->n_layer) + "/" + std::to_string(config->n_head) + "/" +
                       std::to_string(config->n_embd)
                 : "-";
  line += "\t" + known(config.has_value(), config ? std::to_string(config->n_ctx) : "");
  line += "\t" + known(!model.tokenizer_kind.empty(), model.tokenizer_kind) + "\t";
  line += model.runnable() ? "runnable" : "not runnable: " + model.problem;
  return line;
}

LoadedModel load(const ScannedModel& scanned, std::shared_ptr<gpu::Context> context) {
  if (!scanned.runnable()) throw Error(scanned.name + " is not runnable: " + scanned.problem);
  return {model::Model::from_tensors(*scanned.config, io::load_tensors(scanned.weights),
                                     std::move(context)),
          tokenizer::load_tokenizer(scanned.tokenizer_files)};
}

}  // namespace wgpt::top
