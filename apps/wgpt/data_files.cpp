#include "data_files.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "host.h"
#include "wgpt/error.h"

namespace wgpt::cli {
namespace {

std::string read_whole(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  if (!file) throw Error("cannot read " + path.string());
  return text.str();
}

}  // namespace

std::vector<std::filesystem::path> data_folders() {
  std::vector<std::filesystem::path> folders;
  if (const char* chosen = std::getenv("WGPT_DATA_DIR"); chosen && *chosen) {
    folders.emplace_back(chosen);
  }
  if (const std::optional<std::filesystem::path> exe = executable_path()) {
    const std::filesystem::path bin = exe->parent_path();
    folders.push_back((bin.parent_path() / "share" / "wgpt").lexically_normal());  // installed
    folders.push_back(bin / "share" / "wgpt");                                     // build tree
  }
  return folders;
}

std::optional<std::filesystem::path> find_data(const std::filesystem::path& relative) {
  for (const std::filesystem::path& folder : data_folders()) {
    std::error_code error;
    if (std::filesystem::exists(folder / relative, error)) return folder / relative;
  }
  return std::nullopt;
}

std::filesystem::path require_data(const std::filesystem::path& relative, const std::string& what) {
  if (std::optional<std::filesystem::path> found = find_data(relative)) return *found;
  std::string looked;
  for (const std::filesystem::path& folder : data_folders()) {
    looked += (looked.empty() ? "" : ", ") + (folder / relative).string();
  }
  if (looked.empty()) looked = "nowhere: the executable's own path is unknown";
  throw Error(what + " not found: looked in " + looked +
              " (an installed wgpt carries it in PREFIX/share/wgpt; a build tree gets it from "
              "scripts/setup.sh when configured; or set WGPT_DATA_DIR)");
}

std::map<std::string, std::string> gpt2_tokenizer_files() {
  const std::filesystem::path vocab = require_data("gpt2/vocab.json", "GPT-2's vocabulary");
  const std::filesystem::path merges = require_data("gpt2/merges.txt", "GPT-2's merges");
  return {{"vocab.json", read_whole(vocab)}, {"merges.txt", read_whole(merges)}};
}

}  // namespace wgpt::cli
