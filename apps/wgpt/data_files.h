#pragma once
// The files the tool carries with it — GPT-2's vocabulary, the Brown corpus, the shipped models —
// live in a folder share/wgpt/, found relative to the executable: PREFIX/share/wgpt for an
// installed PREFIX/bin/wgpt, build/share/wgpt for build/wgpt in a build tree (cmake/install.cmake
// puts them in both). $WGPT_DATA_DIR, when set, is looked in first.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace wgpt::cli {

// The folders looked in, in order (only those that can be named: without $WGPT_DATA_DIR, or when
// the executable's path is unknown, fewer).
std::vector<std::filesystem::path> data_folders();

// DATA/relative in the first data folder that has it, or nullopt.
std::optional<std::filesystem::path> find_data(const std::filesystem::path& relative);

// DATA/relative; throws a wgpt::Error naming `what` and every place looked in when no folder has
// it.
std::filesystem::path require_data(const std::filesystem::path& relative, const std::string& what);

// GPT-2's tokenizer files by the names a model directory gives them: vocab.json and merges.txt.
std::map<std::string, std::string> gpt2_tokenizer_files();

}  // namespace wgpt::cli
