// What a model path stands for — a model directory, or else a GGUF file — and writing either.

#include <fstream>
#include <string_view>

#include "model/gguf_model.h"
#include "model/model_dir.h"

namespace wgpt::model {
namespace {

bool starts_with_gguf_magic(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  return file.read(magic, sizeof magic) && std::string_view(magic, sizeof magic) == "GGUF";
}

// A path that is not a directory must be a GGUF file: any other file not named .gguf (a model's
// weights given instead of its directory, say) is refused by what it is, not by how its bytes
// fail to parse as GGUF (io::load_gguf says what is wrong with a damaged .gguf).
io::GgufFile open_gguf(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw Error("model " + path.string() + " does not exist");
  if (path.extension() != ".gguf" && std::filesystem::is_regular_file(path) &&
      !starts_with_gguf_magic(path)) {
    throw Error(path.string() +
                " is not a directory: give the model directory that holds config.json, or a "
                "GGUF file");
  }
  return io::load_gguf(path);
}

}  // namespace

StoredModel load_stored(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) return read_model_dir(path);
  return read_gguf_model(open_gguf(path));
}

tokenizer::Vocabulary load_vocabulary(const std::filesystem::path& path) {
  if (std::filesystem::is_directory(path)) return tokenizer::read_vocabulary(path);
  return read_gguf_vocabulary(open_gguf(path));
}

void save_model(const Model& model, const tokenizer::Vocabulary& vocabulary,
                const std::filesystem::path& path, const SaveOptions& options) {
  if (options.format == io::Format::gguf) {
    write_gguf_model(model, vocabulary, path, options.matrices);
    return;
  }
  // The weights and the vocabulary as one update: never a model directory without its tokenizer.
  io::DirectoryUpdate update(path);
  add_model_files(model, update, options.format, options.matrices);
  for (const auto& [name, content] : vocabulary.files()) update.add_text(name, content);
  update.commit();
}

}  // namespace wgpt::model
