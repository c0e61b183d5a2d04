// GPT-2 byte-level BPE: pre-tokenize, map bytes to the byte alphabet's tokens, merge, cache.

#include <array>
#include <mutex>
#include <unordered_map>

#include "tokenizer/bpe_merges.h"
#include "tokenizer/bpe_vocabulary.h"
#include "tokenizer/byte_alphabet.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/text_file.h"
#include "tokenizer/utf8.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {
namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";
// The piece cache is cleared when it grows past this, bounding memory on endless distinct input.
constexpr size_t kMaxCachedPieces = 1 << 16;
constexpr uint32_t kNoToken = UINT32_MAX;

// The bytes a token stands for: each character of the byte alphabet is one byte. A token spelled
// outside the alphabet (an added token in tokenizer.json) stands for its own UTF-8 text.
std::string token_to_bytes(const std::string& token) {
  std::string bytes;
  size_t pos = 0;
  while (pos < token.size()) {
    const auto code_point = next_code_point(token, pos);
    const auto byte = code_point ? code_point_to_byte(*code_point) : std::nullopt;
    if (!byte) return token;
    bytes += static_cast<char>(*byte);
  }
  return bytes;
}

}  // namespace

struct BpeTokenizer::Impl {
  std::vector<std::string> token_bytes;  // id -> the bytes it stands for
  std::array<uint32_t, 256> byte_token;  // byte -> its single-byte token, or kNoToken
  MergeTable merges;
  std::optional<uint32_t> eos;
  bool recognise_eos = false;
  PreTokenizer pre_tokenizer;
  mutable std::mutex cache_mutex;
  mutable std::unordered_map<std::string, std::vector<uint32_t>> cache;

  Impl(const Vocabulary& vocabulary, TokenizerOptions options);
  void encode_piece(std::string_view piece, std::vector<uint32_t>& out) const;
  void encode_ordinary(std::string_view text, std::vector<uint32_t>& out) const;
};

BpeTokenizer::Impl::Impl(const Vocabulary& vocabulary, TokenizerOptions options) {
  std::unordered_map<std::string_view, uint32_t> ids;
  for (uint32_t id = 0; id < vocabulary.tokens.size(); ++id) {
    ids.emplace(vocabulary.tokens[id], id);
    token_bytes.push_back(token_to_bytes(vocabulary.tokens[id]));
  }
  for (size_t byte = 0; byte < 256; ++byte) {
    std::string symbol;
    append_utf8(symbol, byte_to_code_point()[byte]);
    const auto it = ids.find(symbol);
    byte_token[byte] = it == ids.end() ? kNoToken : it->second;
  }
  const auto id_of = [&](const std::string& token, size_t rank) {
    const auto it = ids.find(token);
    if (it == ids.end()) {
      throw Error("BPE merge " + std::to_string(rank + 1) + " uses '" + token +
                  "', which is not in the vocabulary");
    }
    return it->second;
  };
  for (size_t rank = 0; rank < vocabulary.merges.size(); ++rank) {
    const auto& [left, right] = vocabulary.merges[rank];
    // Separate statements: the first missing token is the one reported.
    const uint32_t left_id = id_of(left, rank);
    const uint32_t right_id = id_of(right, rank);
    merges.add(left_id, right_id, id_of(left + right, rank));
  }
  if (const auto it = ids.find(kEndOfText); it != ids.end()) eos = it->second;
  recognise_eos = options.special_tokens == SpecialTokens::recognise;
}

void BpeTokenizer::Impl::encode_piece(std::string_view piece, std::vector<uint32_t>& out) const {
  {
    const std::lock_guard lock(cache_mutex);
    if (const auto it = cache.find(std::string(piece)); it != cache.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  std::vector<uint32_t> symbols;
  symbols.reserve(piece.size());
  for (const char c : piece) {
    const uint32_t id = byte_token[static_cast<unsigned char>(c)];
    if (id == kNoToken) {
      throw Error("the BPE vocabulary has no token for byte " +
                  std::to_string(static_cast<unsigned char>(c)));
    }
    symbols.push_back(id);
  }
  const auto merged = merges.apply(std::move(symbols));
  out.insert(out.end(), merged.begin(), merged.end());
  const std::lock_guard lock(cache_mutex);
  if (cache.size() >= kMaxCachedPieces) cache.clear();
  cache.emplace(piece, merged);
}

void BpeTokenizer::Impl::encode_ordinary(std::string_view text, std::vector<uint32_t>& out) const {
  pre_tokenizer.split(text, [&](std::string_view piece) { encode_piece(piece, out); });
}

BpeTokenizer::BpeTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BpeTokenizer::~BpeTokenizer() = default;

std::unique_ptr<BpeTokenizer> BpeTokenizer::from_vocabulary(const Vocabulary& vocabulary,
                                                            TokenizerOptions options) {
  if (vocabulary.kind != Vocabulary::Kind::bpe || vocabulary.tokens.empty()) {
    throw Error("a BPE tokenizer needs a non-empty BPE vocabulary");
  }
  return std::unique_ptr<BpeTokenizer>(
      new BpeTokenizer(std::make_unique<Impl>(vocabulary, options)));
}

std::unique_ptr<BpeTokenizer> BpeTokenizer::from_vocab_and_merges(std::string_view vocab_json,
                                                                  std::string_view merges_txt,
                                                                  TokenizerOptions options) {
  return from_vocabulary(parse_vocab_and_merges(vocab_json, merges_txt), options);
}

std::unique_ptr<BpeTokenizer> BpeTokenizer::from_tokenizer_json(std::string_view tokenizer_json,
                                                                TokenizerOptions options) {
  return from_vocabulary(parse_tokenizer_json(tokenizer_json), options);
}

std::unique_ptr<BpeTokenizer> BpeTokenizer::from_files(const std::filesystem::path& vocab_json,
                                                       const std::filesystem::path& merges_txt,
                                                       TokenizerOptions options) {
  return from_vocab_and_merges(read_text_file(vocab_json), read_text_file(merges_txt), options);
}

std::vector<uint32_t> BpeTokenizer::encode(std::string_view text) const {
  std::vector<uint32_t> ids;
  if (!impl_->recognise_eos || !impl_->eos) {
    impl_->encode_ordinary(text, ids);
    return ids;
  }
  // The end-of-text marker splits the text; each segment is encoded on its own.
  for (size_t marker; (marker = text.find(kEndOfText)) != std::string_view::npos;) {
    impl_->encode_ordinary(text.substr(0, marker), ids);
    ids.push_back(*impl_->eos);
    text.remove_prefix(marker + kEndOfText.size());
  }
  impl_->encode_ordinary(text, ids);
  return ids;
}

std::string BpeTokenizer::token_bytes(uint32_t id) const {
  if (id >= impl_->token_bytes.size()) {
    throw Error("token id " + std::to_string(id) + " is outside the BPE vocabulary of " +
                std::to_string(impl_->token_bytes.size()));
  }
  return impl_->token_bytes[id];
}

size_t BpeTokenizer::vocab_size() const { return impl_->token_bytes.size(); }

std::optional<uint32_t> BpeTokenizer::eos_id() const { return impl_->eos; }

}  // namespace wgpt::tokenizer
