#include "text_output.h"

#include <cstdio>

#include "wgpt/error.h"

namespace wgpt::cli {

void require_file(const std::filesystem::path& path, const std::string& option,
                  const std::string& format) {
  if (!is_standard_output(path)) return;
  throw Error(option + " - (standard output) is for text: " + format +
              " is a binary format, so give a file name");
}

TextOutput::TextOutput(const std::filesystem::path& path) : path_(path) {
  if (is_standard_output(path_)) return;
  file_.open(path_, std::ios::binary | std::ios::trunc);
  if (!file_) throw Error("cannot write " + path_.string());
}

void TextOutput::write(std::string_view text) {
  if (!is_standard_output(path_)) {
    file_.write(text.data(), static_cast<std::streamsize>(text.size()));
  } else if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size()) {
    throw Error("writing standard output failed");
  }
}

void TextOutput::close() {
  if (is_standard_output(path_)) {
    if (std::fflush(stdout) != 0) throw Error("writing standard output failed");
    return;
  }
  file_.close();
  if (!file_) throw Error("writing " + path_.string() + " failed");
}

std::string TextOutput::name() const {
  return is_standard_output(path_) ? "standard output" : path_.string();
}

}  // namespace wgpt::cli
