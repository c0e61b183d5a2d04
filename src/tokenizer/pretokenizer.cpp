#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <string>

#include "wgpt/error.h"

namespace wgpt::tokenizer {
namespace {

constexpr std::string_view kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

struct MatchData {
  explicit MatchData(const pcre2_code* code)
      : data(pcre2_match_data_create_from_pattern(code, nullptr)) {
    if (data == nullptr) throw Error("out of memory creating PCRE2 match data");
  }
  ~MatchData() { pcre2_match_data_free(data); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
  pcre2_match_data* data;
};

}  // namespace

struct PreTokenizer::Pattern {
  pcre2_code* code = nullptr;
  ~Pattern() { pcre2_code_free(code); }
};

PreTokenizer::PreTokenizer() : pattern_(std::make_unique<Pattern>()) {
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  pattern_->code =
      pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kGpt2Pattern.data()), kGpt2Pattern.size(),
                    PCRE2_UTF | PCRE2_UCP, &error, &error_offset, nullptr);
  if (pattern_->code == nullptr) {
    throw Error("cannot compile GPT-2's pre-tokenizer regex: " + pcre2_message(error));
  }
  // JIT is only a speed-up: where it is unavailable (wasm) the interpreter gives the same matches.
  pcre2_jit_compile(pattern_->code, PCRE2_JIT_COMPLETE);
}

PreTokenizer::~PreTokenizer() = default;

void PreTokenizer::split(std::string_view text,
                         const std::function<void(std::string_view)>& on_piece) const {
  const MatchData match(pattern_->code);
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  // PCRE2 checks UTF-8 validity once, on the first match; later matches skip the (linear) check,
  // which would otherwise make splitting quadratic in the text length.
  uint32_t options = 0;
  size_t offset = 0;
  while (offset < text.size()) {
    const int rc =
        pcre2_match(pattern_->code, subject, text.size(), offset, options, match.data, nullptr);
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
      throw Error("text is not valid UTF-8 at byte " +
                  std::to_string(pcre2_get_startchar(match.data)) + ": " + pcre2_message(rc));
    }
    if (rc < 0) throw Error("pre-tokenizer regex failed: " + pcre2_message(rc));
    const PCRE2_SIZE* bounds = pcre2_get_ovector_pointer(match.data);
    // Every character is a letter, a number, a space or something else, so the alternatives cover
    // all text and each match starts where the previous one ended.
    if (bounds[0] != offset || bounds[1] <= bounds[0]) {
      throw Error("pre-tokenizer regex skipped text at byte " + std::to_string(offset));
    }
    on_piece(text.substr(offset, bounds[1] - offset));
    offset = bounds[1];
    options = PCRE2_NO_UTF_CHECK;
  }
}

}  // namespace wgpt::tokenizer
