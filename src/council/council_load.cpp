// Loading a council: from a manifest (Forge's layout: one folder, one config and tokenizer, an
// expert file each) or from model directories whose tokenizers must agree.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "wgpt/council.h"

namespace wgpt::council {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("cannot read " + path.string());
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Why two tokenizers disagree, or empty when they map every id to the same bytes.
std::string tokenizer_mismatch(const tokenizer::Tokenizer& a, const tokenizer::Tokenizer& b) {
  if (a.vocab_size() != b.vocab_size()) {
    return std::to_string(b.vocab_size()) + " tokens where the first has " +
           std::to_string(a.vocab_size());
  }
  for (uint32_t id = 0; id < a.vocab_size(); ++id) {
    if (a.token_bytes(id) != b.token_bytes(id)) {
      return "token " + std::to_string(id) + " is \"" + b.token_bytes(id) +
             "\" where the first has \"" + a.token_bytes(id) + "\"";
    }
  }
  return {};
}

void check_vocabulary(const tokenizer::Tokenizer& tokenizer, const model::Config& config,
                      const std::string& source) {
  if (tokenizer.vocab_size() > config.vocab_size) {
    throw Error(source + ": the tokenizer has " + std::to_string(tokenizer.vocab_size()) +
                " tokens but the model only " + std::to_string(config.vocab_size));
  }
}

// A folder's name, also when the path ends in a separator.
std::string folder_name(const std::filesystem::path& dir) {
  std::filesystem::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();
  return normal.filename().string();
}

}  // namespace

std::vector<ManifestEntry> parse_manifest(const std::string& json, const std::string& source) {
  nlohmann::json manifest;
  try {
    manifest = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& error) {
    throw Error(source + " is not valid JSON: " + error.what());
  }
  if (!manifest.is_object() || !manifest.contains("experts") || !manifest["experts"].is_array() ||
      manifest["experts"].empty()) {
    throw Error(source + " has no \"experts\" list (a council manifest lists its experts' files)");
  }
  std::vector<ManifestEntry> entries;
  for (const nlohmann::json& expert : manifest["experts"]) {
    if (!expert.is_object() || !expert.contains("file") || !expert["file"].is_string()) {
      throw Error(source + ": every expert needs a \"file\" naming its weights");
    }
    ManifestEntry entry{expert["file"].get<std::string>(), ""};
    if (expert.contains("label") && expert["label"].is_string()) {
      entry.label = expert["label"].get<std::string>();
    }
    if (entry.label.empty()) entry.label = std::filesystem::path(entry.file).stem().string();
    entries.push_back(std::move(entry));
  }
  return entries;
}

Loaded load_manifest(const std::filesystem::path& manifest, std::shared_ptr<gpu::Context> context) {
  const std::vector<ManifestEntry> entries = parse_manifest(read_text(manifest), manifest.string());
  const std::filesystem::path dir = manifest.parent_path();
  const model::Config config = model::Config::load(dir);
  Loaded loaded;
  loaded.tokenizer = tokenizer::load_tokenizer(dir);
  check_vocabulary(*loaded.tokenizer, config, dir.string());
  std::vector<Expert> experts;
  for (const ManifestEntry& entry : entries) {
    const std::filesystem::path file = dir / entry.file;
    experts.push_back(
        {entry.label, model::Model::from_tensors(config, io::load_tensors(file), context)});
  }
  loaded.council = std::make_unique<Council>(std::move(experts));
  return loaded;
}

Loaded load_directories(const std::vector<std::filesystem::path>& model_dirs,
                        std::shared_ptr<gpu::Context> context) {
  if (model_dirs.empty()) throw Error("a council needs at least one model directory");
  Loaded loaded;
  std::vector<Expert> experts;
  for (const std::filesystem::path& dir : model_dirs) {
    model::Model model = model::Model::load(dir, context);
    std::unique_ptr<tokenizer::Tokenizer> tokenizer = tokenizer::load_tokenizer(dir);
    check_vocabulary(*tokenizer, model.config(), dir.string());
    if (!loaded.tokenizer) {
      loaded.tokenizer = std::move(tokenizer);
    } else if (std::string why = tokenizer_mismatch(*loaded.tokenizer, *tokenizer); !why.empty()) {
      throw Error("the tokenizer of " + dir.string() + " differs from that of " +
                  model_dirs.front().string() + ": " + why);
    }
    experts.push_back({folder_name(dir), std::move(model)});
  }
  loaded.council = std::make_unique<Council>(std::move(experts));
  return loaded;
}

}  // namespace wgpt::council
