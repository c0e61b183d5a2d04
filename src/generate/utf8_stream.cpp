#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The length of the UTF-8 sequence a lead byte starts, or 0 for a byte that cannot lead one.
size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Whether byte `index` (≥ 1) of a sequence led by `lead` may be `byte` (RFC 3629's table: no
// overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_continuation(unsigned char lead, size_t index, unsigned char byte) {
  if (index == 1) {
    if (lead == 0xE0) return byte >= 0xA0 && byte <= 0xBF;
    if (lead == 0xED) return byte >= 0x80 && byte <= 0x9F;
    if (lead == 0xF0) return byte >= 0x90 && byte <= 0xBF;
    if (lead == 0xF4) return byte >= 0x80 && byte <= 0x8F;
  }
  return byte >= 0x80 && byte <= 0xBF;
}

}  // namespace

std::string Utf8Stream::push(std::string_view bytes) {
  pending_.append(bytes);
  std::string out;
  size_t at = 0;
  while (at < pending_.size()) {
    const auto lead = static_cast<unsigned char>(pending_[at]);
    const size_t length = sequence_length(lead);
    if (length == 0) {
      out += kReplacement;
      ++at;
      continue;
    }
    size_t have = 1;
    while (have < length && at + have < pending_.size() &&
           valid_continuation(lead, have, static_cast<unsigned char>(pending_[at + have]))) {
      ++have;
    }
    if (have == length) {
      out.append(pending_, at, length);
      at += length;
    } else if (at + have == pending_.size()) {
      break;  // incomplete so far: wait for more bytes
    } else {
      out += kReplacement;  // broken by a byte that cannot continue it
      at += have;
    }
  }
  pending_.erase(0, at);
  return out;
}

std::string Utf8Stream::finish() {
  std::string out = pending_.empty() ? "" : std::string(kReplacement);
  pending_.clear();
  return out;
}

}  // namespace wgpt::generate
