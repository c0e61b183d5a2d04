#pragma once
// wgpt::tokenizer — text to token ids and back: GPT-2's byte-level BPE and character vocabularies,
// behind one interface.
//
//   auto tok = wgpt::tokenizer::load_tokenizer("models/gpt2");   // BPE or char, by the files
//   present std::vector<uint32_t> ids = tok->encode("Hello world");      // {15496, 995}
//   std::string text = tok->decode(ids);                         // "Hello world", byte for byte
//
// Text is UTF-8: encoding invalid UTF-8 is a wgpt::Error naming the byte offset. decode() returns
// the exact bytes the ids stand for, so decode(encode(s)) == s. A GPT-2 token may hold part of a
// multi-byte character: to stream text, append token_bytes(id) per generated token and print only
// the complete characters (decode of a prefix of ids is a prefix of the decode of all of them).
// Every tokenizer is immutable after loading and safe to use from several threads.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wgpt/error.h"

namespace wgpt::tokenizer {

// How GPT-2 BPE treats the text "<|endoftext|>".
enum class SpecialTokens {
  // As ordinary text (it becomes several tokens): what HF tokenizers and tiktoken do by default,
  // and what the fixtures assume. A prompt can never inject an end-of-text token.
  as_text,
  // As the single end-of-text token (id 50256 in GPT-2), e.g. for training text whose documents are
  // separated by it.
  recognise,
};

// What a character vocabulary does with a character it lacks. (BPE encodes every byte, so it never
// meets one.)
enum class UnknownCharacters {
  error,    // throw naming the character and its position: nothing is encoded silently
  replace,  // encode TokenizerOptions::replacement in its place
  skip,     // drop it
};

struct TokenizerOptions {
  SpecialTokens special_tokens = SpecialTokens::as_text;
  UnknownCharacters unknown_characters = UnknownCharacters::error;
  // The one character `replace` encodes instead of an unknown one; it must be in the vocabulary.
  std::string replacement = "?";
};

// A vocabulary as data: what a GGUF file stores, and what `wgpt convert` carries from one format
// to another. A tokenizer is made from it (make_tokenizer) or from a model directory's files.
struct Vocabulary {
  enum class Kind { bpe, characters };
  Kind kind = Kind::bpe;
  // id → token: BPE tokens spelled in GPT-2's byte alphabet (as vocab.json has them); characters as
  // their UTF-8.
  std::vector<std::string> tokens;
  // BPE merges in rank order.
  std::vector<std::pair<std::string, std::string>> merges;

  // The files a model directory keeps it in, by name: vocab.json, and merges.txt for BPE.
  std::map<std::string, std::string> files() const;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Throws wgpt::Error on invalid UTF-8 or (char vocabularies) a character outside the vocabulary.
  virtual std::vector<uint32_t> encode(std::string_view text) const = 0;
  // The concatenated bytes of the ids; throws wgpt::Error naming an id >= vocab_size().
  std::string decode(std::span<const uint32_t> ids) const;
  // The bytes one token stands for (possibly an incomplete UTF-8 sequence); throws for a bad id.
  virtual std::string token_bytes(uint32_t id) const = 0;
  // Ids run from 0 to vocab_size() - 1.
  virtual size_t vocab_size() const = 0;
  // The end-of-text token, when the vocabulary has one ("<|endoftext|>" for GPT-2).
  virtual std::optional<uint32_t> eos_id() const = 0;
  // "bpe" or "char".
  virtual std::string_view kind() const = 0;
};

// GPT-2 byte-level BPE. Text is split by GPT-2's pre-tokenizer regex, each piece's bytes are mapped
// to GPT-2's printable byte alphabet, and merges apply lowest rank first (leftmost on ties) — the
// same result as HF tokenizers and tiktoken. Results are cached per piece.
class BpeTokenizer final : public Tokenizer {
 public:
  // `vocab_json`: {"token": id, ...} over byte-mapped token strings, ids exactly 0..n-1.
  // `merges_txt`: one "left right" pair per line, rank = line order; a "#version" first line and
  // blank lines are skipped. Every merge's parts and result must be in the vocabulary.
  static std::unique_ptr<BpeTokenizer> from_vocab_and_merges(std::string_view vocab_json,
                                                             std::string_view merges_txt,
                                                             TokenizerOptions options = {});
  // An HF `tokenizer.json` with a BPE model: model.vocab, model.merges ("a b" strings or [a, b]
  // pairs) and added_tokens (added to the vocabulary when missing from it).
  static std::unique_ptr<BpeTokenizer> from_tokenizer_json(std::string_view tokenizer_json,
                                                           TokenizerOptions options = {});
  static std::unique_ptr<BpeTokenizer> from_files(const std::filesystem::path& vocab_json,
                                                  const std::filesystem::path& merges_txt,
                                                  TokenizerOptions options = {});
  // From a Vocabulary of kind bpe (every merge's parts and result in its tokens).
  static std::unique_ptr<BpeTokenizer> from_vocabulary(const Vocabulary& vocabulary,
                                                       TokenizerOptions options = {});

  ~BpeTokenizer() override;
  std::vector<uint32_t> encode(std::string_view text) const override;
  std::string token_bytes(uint32_t id) const override;
  size_t vocab_size() const override;
  std::optional<uint32_t> eos_id() const override;
  std::string_view kind() const override { return "bpe"; }

 private:
  struct Impl;
  explicit BpeTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// One token per Unicode code point (nanoGPT's character models), from a vocab.json that maps
// single-character strings to ids 0..n-1. No end-of-text token.
class CharTokenizer final : public Tokenizer {
 public:
  // options.unknown_characters and options.replacement apply; special_tokens has no meaning here.
  // Throws when `replace` is asked for with a replacement that is not one vocabulary character.
  static std::unique_ptr<CharTokenizer> from_json(std::string_view vocab_json,
                                                  TokenizerOptions options = {});
  static std::unique_ptr<CharTokenizer> from_file(const std::filesystem::path& vocab_json,
                                                  TokenizerOptions options = {});

  // A character outside the vocabulary is replaced, skipped or (by default) an error naming it
  // with its character and byte offset. Invalid UTF-8 is always an error.
  std::vector<uint32_t> encode(std::string_view text) const override;
  std::string token_bytes(uint32_t id) const override;
  size_t vocab_size() const override { return characters_.size(); }
  std::optional<uint32_t> eos_id() const override { return std::nullopt; }
  std::string_view kind() const override { return "char"; }

 private:
  CharTokenizer() = default;
  std::optional<uint32_t> id_of(char32_t code_point) const;

  std::vector<std::string> characters_;             // id -> UTF-8 of its character
  std::vector<std::pair<char32_t, uint32_t>> ids_;  // (code point, id), sorted by code point
  UnknownCharacters unknown_ = UnknownCharacters::error;
  uint32_t replacement_id_ = 0;  // meaningful when unknown_ is replace
};

// A character vocabulary (vocab.json: character → id) of every character in `text`, ids in code
// point order: what CharTokenizer::from_json reads. Throws on invalid UTF-8.
std::string char_vocabulary_json(std::string_view text);

// The files a tokenizer can come from; an empty path is a file that is not there.
struct TokenizerFiles {
  std::filesystem::path vocab_json, merges_txt, tokenizer_json;

  // The files in `dir`: vocab.json, merges.txt, tokenizer.json — each as `STEM.vocab.json` etc.
  // first when a stem is given (a folder of several checkpoints, each with its own sidecars).
  static TokenizerFiles find(const std::filesystem::path& dir, const std::string& stem = "");
  bool empty() const { return vocab_json.empty() && tokenizer_json.empty(); }
};

// The vocabulary the files hold: BPE from vocab.json + merges.txt when merges.txt is there, else
// BPE from tokenizer.json when that is there, else a character vocabulary from vocab.json.
Vocabulary read_vocabulary(const TokenizerFiles& files);
// The vocabulary of a model directory: read_vocabulary(TokenizerFiles::find(model_dir)).
Vocabulary read_vocabulary(const std::filesystem::path& model_dir);
// The tokenizer of a vocabulary; its tokens and merges are checked as the files' are.
std::unique_ptr<Tokenizer> make_tokenizer(const Vocabulary& vocabulary,
                                          TokenizerOptions options = {});
// make_tokenizer(read_vocabulary(files), options).
std::unique_ptr<Tokenizer> load_tokenizer(const TokenizerFiles& files,
                                          TokenizerOptions options = {});
// make_tokenizer(read_vocabulary(model_dir), options).
std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& model_dir,
                                          TokenizerOptions options = {});

}  // namespace wgpt::tokenizer
