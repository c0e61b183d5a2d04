// Character vocabularies, and choosing a tokenizer for a model directory.

#include <gtest/gtest.h>

#include <fstream>

#include "io_test_util.h"
#include "test_support.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {
namespace {

TEST(CharTokenizer, ReadsTheShakespeareVocabulary) {
  const auto tokenizer = load_tokenizer(test::hf_fixture("char-tiny"));
  EXPECT_EQ(tokenizer->kind(), "char");
  EXPECT_EQ(tokenizer->vocab_size(), 65u);
  EXPECT_EQ(tokenizer->eos_id(), std::nullopt);
  // nanoGPT's rule: ids follow the sorted characters.
  EXPECT_EQ(tokenizer->encode("\n !AZaz"), (std::vector<uint32_t>{0, 1, 2, 13, 38, 39, 64}));
  const std::string text = "ROMEO:\nWhat say'st thou, gentle";
  const auto ids = tokenizer->encode(text);
  EXPECT_EQ(ids.size(), text.size());
  EXPECT_EQ(tokenizer->decode(ids), text);
}

TEST(CharTokenizer, UnknownCharacterIsNamedWithItsPosition) {
  const auto tokenizer = load_tokenizer(test::hf_fixture("char-tiny"));
  try {
    tokenizer->encode("caf\xc3\xa9!");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("'\xc3\xa9' (U+00E9)"), std::string::npos) << message;
    EXPECT_NE(message.find("character 3"), std::string::npos) << message;
    EXPECT_NE(message.find("byte 3"), std::string::npos) << message;
  }
  EXPECT_THROW(tokenizer->encode("tab\there"), Error);
  EXPECT_THROW(tokenizer->encode("bad \xff"), Error);
}

TEST(CharTokenizer, UnknownCharactersAreReplacedOrSkippedWhenAsked) {
  const std::string text = "caf\xc3\xa9 #3!";  // é and # are not in the vocabulary
  const auto replaced =
      load_tokenizer(test::hf_fixture("char-tiny"),
                     {.unknown_characters = UnknownCharacters::replace, .replacement = "?"});
  EXPECT_EQ(replaced->decode(replaced->encode(text)), "caf? ?3!");
  const auto by_space =
      load_tokenizer(test::hf_fixture("char-tiny"),
                     {.unknown_characters = UnknownCharacters::replace, .replacement = " "});
  EXPECT_EQ(by_space->decode(by_space->encode(text)), "caf   3!");
  const auto skipped = load_tokenizer(test::hf_fixture("char-tiny"),
                                      {.unknown_characters = UnknownCharacters::skip});
  EXPECT_EQ(skipped->decode(skipped->encode(text)), "caf 3!");
  EXPECT_EQ(skipped->encode("\xc3\xa9#"), std::vector<uint32_t>{});
  // Known text encodes the same whatever the policy; invalid UTF-8 stays an error.
  EXPECT_EQ(skipped->encode("ROMEO:"),
            load_tokenizer(test::hf_fixture("char-tiny"))->encode("ROMEO:"));
  EXPECT_THROW(skipped->encode("bad \xff"), Error);
  EXPECT_THROW(replaced->encode("bad \xff"), Error);
}

TEST(CharTokenizer, AReplacementOutsideTheVocabularyIsAnError) {
  for (const std::string replacement : {"#", "", "ab", "\xff"}) {
    try {
      load_tokenizer(
          test::hf_fixture("char-tiny"),
          {.unknown_characters = UnknownCharacters::replace, .replacement = replacement});
      FAIL() << "replacement '" << replacement << "' accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("not one of the vocabulary's 65 characters"),
                std::string::npos)
          << e.what();
    }
  }
  // Only `replace` reads the replacement.
  EXPECT_NO_THROW(load_tokenizer(test::hf_fixture("char-tiny"), {.replacement = "#"}));
}

TEST(CharTokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  const auto tokenizer = load_tokenizer(test::hf_fixture("char-tiny"));
  EXPECT_EQ(tokenizer->decode(std::vector<uint32_t>{64}), "z");
  EXPECT_THROW(tokenizer->decode(std::vector<uint32_t>{1, 65}), Error);
  EXPECT_THROW(tokenizer->token_bytes(65), Error);
}

TEST(CharTokenizer, MultiByteCharactersAreOneToken) {
  const auto tokenizer = CharTokenizer::from_json(R"({"\u00e9": 1, "\ud83d\udc4d": 0, "a": 2})");
  EXPECT_EQ(tokenizer->encode("a\xc3\xa9\xf0\x9f\x91\x8d"), (std::vector<uint32_t>{2, 1, 0}));
  EXPECT_EQ(tokenizer->token_bytes(0), "\xf0\x9f\x91\x8d");
}

TEST(CharTokenizer, BadVocabulariesAreErrors) {
  EXPECT_THROW(CharTokenizer::from_json(R"({"ab": 0})"), Error);
  EXPECT_THROW(CharTokenizer::from_json(R"({"a": 0, "b": 0})"), Error);
  EXPECT_THROW(CharTokenizer::from_json(R"({"a": 1})"), Error);
  EXPECT_THROW(CharTokenizer::from_json(R"({"a": "0"})"), Error);
  EXPECT_THROW(CharTokenizer::from_json(R"({})"), Error);
  EXPECT_THROW(CharTokenizer::from_json(R"(["a"])"), Error);
  EXPECT_THROW(CharTokenizer::from_json("{"), Error);
}

TEST(TokenizerLoading, ADirectoryWithoutTokenizerFilesIsAnError) {
  const test::ScratchDir dir;
  EXPECT_THROW(load_tokenizer(dir.path()), Error);
  EXPECT_THROW(load_tokenizer(dir / "missing"), Error);
  std::ofstream(dir / "merges.txt") << "a b\n";  // merges without vocab.json
  EXPECT_THROW(load_tokenizer(dir.path()), Error);
}

}  // namespace
}  // namespace wgpt::tokenizer
