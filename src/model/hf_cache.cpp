// Hub ids resolved in the Hugging Face cache, laid out as huggingface_hub writes it:
//   HUB/models--ORG--NAME/refs/main              the commit the main branch pointed at
//   HUB/models--ORG--NAME/snapshots/COMMIT/...   the files, links into ../../blobs/

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>

#include "wgpt/model_files.h"

namespace wgpt::model {
namespace {

std::optional<std::filesystem::path> environment_path(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::filesystem::path(value);
}

// "gpt2" or "openai-community/gpt2": one or two names of letters, digits, '.', '_' and '-', not
// starting with '.' or '-' — so that no id can climb out of the cache.
bool is_hub_id(std::string_view id) {
  const size_t slash = id.find('/');
  const auto valid_part = [](std::string_view part) {
    return !part.empty() && part.front() != '.' && part.front() != '-' &&
           std::all_of(part.begin(), part.end(), [](char c) {
             return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
           });
  };
  if (slash == std::string_view::npos) return valid_part(id);
  return valid_part(id.substr(0, slash)) && valid_part(id.substr(slash + 1));
}

std::string folder_name(std::string_view id) {
  std::string name = "models--";
  for (const char c : id) name += c == '/' ? std::string("--") : std::string(1, c);
  return name;
}

std::string first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

}  // namespace

std::optional<std::filesystem::path> hf_hub_cache() {
  if (auto hub = environment_path("HF_HUB_CACHE")) return hub;
  if (auto home = environment_path("HF_HOME")) return *home / "hub";
  if (auto cache = environment_path("XDG_CACHE_HOME")) return *cache / "huggingface" / "hub";
#ifdef _WIN32
  auto user_home = environment_path("USERPROFILE");
#else
  auto user_home = environment_path("HOME");
#endif
  if (user_home) return *user_home / ".cache" / "huggingface" / "hub";
  return std::nullopt;
}

std::filesystem::path hf_cache_folder(std::string_view id) {
  const auto hub = hf_hub_cache();
  return (hub ? *hub : std::filesystem::path("~/.cache/huggingface/hub")) / folder_name(id);
}

std::optional<std::filesystem::path> find_in_hf_cache(std::string_view id) {
  if (!is_hub_id(id) || !hf_hub_cache()) return std::nullopt;
  const std::filesystem::path folder = hf_cache_folder(id);
  if (!std::filesystem::is_directory(folder)) return std::nullopt;
  const std::filesystem::path snapshots = folder / "snapshots";
  if (std::filesystem::exists(folder / "refs" / "main")) {
    const std::string revision = first_line(folder / "refs" / "main");
    if (!is_hub_id(revision) || revision.find('/') != std::string::npos ||
        !std::filesystem::is_directory(snapshots / revision)) {
      throw Error(folder.string() + "/refs/main names revision '" + revision +
                  "', which has no folder in " + snapshots.string());
    }
    return snapshots / revision;
  }
  std::vector<std::filesystem::path> found;
  if (std::filesystem::is_directory(snapshots)) {
    for (const auto& entry : std::filesystem::directory_iterator(snapshots)) {
      if (entry.is_directory()) found.push_back(entry.path());
    }
  }
  if (found.size() == 1) return found.front();
  if (found.empty()) {
    throw Error(folder.string() + " holds no snapshot (did the download finish?)");
  }
  std::sort(found.begin(), found.end());
  std::string names;
  for (const auto& path : found) names += (names.empty() ? "" : ", ") + path.filename().string();
  throw Error(folder.string() + " holds " + std::to_string(found.size()) + " snapshots (" + names +
              ") and no refs/main to choose one: give the snapshot's folder instead");
}

}  // namespace wgpt::model
