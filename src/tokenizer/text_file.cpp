#include "tokenizer/text_file.h"

#include <fstream>
#include <sstream>

#include "wgpt/error.h"

namespace wgpt::tokenizer {
namespace {

// GPT-2's vocab.json is 1 MiB and a 250k-token tokenizer.json under 20 MiB.
constexpr uintmax_t kMaxTokenizerFileBytes = uintmax_t{256} << 20;

}  // namespace

std::string read_text_file(const std::filesystem::path& path) {
  // The tokenizer depends on the standard library alone (not on wgpt::io, whose readers make the
  // same check on the descriptor): a FIFO or device given as a tokenizer file would block or never
  // end, so only a regular file of a plausible size is opened.
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status))
    throw Error("cannot read " + path.string() + ": no such file");
  if (!std::filesystem::is_regular_file(status)) {
    throw Error("cannot read " + path.string() + ": it is not a regular file");
  }
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw Error("cannot read " + path.string() + ": " + error.message());
  if (size > kMaxTokenizerFileBytes) {
    throw Error("cannot read " + path.string() + ": a tokenizer file is at most 256 MiB");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + path.string());
  return text.str();
}

}  // namespace wgpt::tokenizer
