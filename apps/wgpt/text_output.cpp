#include "text_output.h"

#include "standard_output.h"
#include "wgpt/error.h"

namespace wgpt::cli {

void require_file(const std::filesystem::path& path, const std::string& option,
                  const std::string& format) {
  if (!is_standard_output(path)) return;
  throw Error(option + " - (standard output) is for text: " + format +
              " is a binary format, so give a file name");
}

TextOutput::TextOutput(const std::filesystem::path& path) : path_(path) {
  if (!is_standard_output(path_)) file_.emplace(path_);
}

void TextOutput::write(std::string_view text) {
  if (file_) {
    file_->write(text);
  } else {
    write_stdout(text);
  }
}

void TextOutput::close() {
  if (file_) {
    file_->commit();
  } else {
    finish_stdout();
  }
}

std::string TextOutput::name() const {
  return is_standard_output(path_) ? "standard output" : path_.string();
}

}  // namespace wgpt::cli
