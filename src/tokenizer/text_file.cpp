#include "tokenizer/text_file.h"

#include <fstream>
#include <sstream>

#include "wgpt/error.h"

namespace wgpt::tokenizer {

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + path.string());
  return text.str();
}

}  // namespace wgpt::tokenizer
