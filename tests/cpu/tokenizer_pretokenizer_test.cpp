// GPT-2's pre-tokenizer, hand-matched: the pieces PCRE2 found on a recorded random corpus, the
// pattern's edge cases one by one, and the generated character-class table.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io_test_util.h"
#include "test_support.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/pretokenizer_classes.h"

namespace wgpt::tokenizer {
namespace {

std::vector<std::string> pieces(std::string_view text) {
  std::vector<std::string> out;
  PreTokenizer().split(text, [&](std::string_view piece) { out.emplace_back(piece); });
  return out;
}

using Pieces = std::vector<std::string>;

TEST(PreTokenizer, MatchesPcre2OnTheRecordedCorpus) {
  const auto json = nlohmann::json::parse(
      test::read_text(test::source_dir() / "tests/fixtures/gpt2-pretokenizer-pcre2.json"));
  const auto& cases = json.at("cases");
  ASSERT_EQ(cases.size(), 400u);
  for (const auto& c : cases) {
    const std::string text = c.at("text");
    std::vector<size_t> lengths;
    for (const auto& piece : pieces(text)) lengths.push_back(piece.size());
    EXPECT_EQ(lengths, c.at("piece_bytes").get<std::vector<size_t>>()) << "text: " << c.at("text");
  }
}

TEST(PreTokenizer, ContractionsComeFirstAndAreCaseSensitive) {
  EXPECT_EQ(pieces("don't we'll they're I've I'm she'd it's"),
            (Pieces{"don", "'t", " we", "'ll", " they", "'re", " I", "'ve", " I", "'m", " she",
                    "'d", " it", "'s"}));
  EXPECT_EQ(pieces("IT'S"), (Pieces{"IT", "'", "S"}));
  EXPECT_EQ(pieces("'sun"), (Pieces{"'s", "un"}));
  EXPECT_EQ(pieces("'l"), (Pieces{"'", "l"}));
  EXPECT_EQ(pieces(" 's"), (Pieces{" '", "s"}));
  EXPECT_EQ(pieces("?'s"), (Pieces{"?'", "s"}));
}

TEST(PreTokenizer, OneOptionalSpaceJoinsTheRunAfterIt) {
  EXPECT_EQ(pieces("Hello world 42 !!"), (Pieces{"Hello", " world", " 42", " !!"}));
  EXPECT_EQ(pieces("abc123def"), (Pieces{"abc", "123", "def"}));
  EXPECT_EQ(pieces("½²٣x"), (Pieces{"½²٣", "x"}));            // No and Nd are numbers
  EXPECT_EQ(pieces("e\xcc\x81"), (Pieces{"e", "\xcc\x81"}));  // a combining mark is "other"
}

TEST(PreTokenizer, WhitespaceRunsLeaveTheirLastSpaceToTheNextWord) {
  EXPECT_EQ(pieces("a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(pieces("a \n\nb"), (Pieces{"a", " \n", "\n", "b"}));
  EXPECT_EQ(pieces("a\nb"), (Pieces{"a", "\n", "b"}));
  EXPECT_EQ(pieces("a  "), (Pieces{"a", "  "}));
  EXPECT_EQ(pieces(" "), (Pieces{" "}));
  EXPECT_EQ(pieces("\t\u3000x"), (Pieces{"\t", "\u3000", "x"}));
}

TEST(PreTokenizer, InvalidUtf8IsReportedBeforeAnyPiece) {
  int calls = 0;
  try {
    PreTokenizer().split("fine text \xff", [&](std::string_view) { ++calls; });
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "text is not valid UTF-8 at byte 10");
  }
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(pieces("").empty());
}

TEST(PreTokenizerClasses, TableIsSortedDisjointAndHasPcre2sSpaces) {
  const auto ranges = char_class_ranges();
  ASSERT_GT(ranges.size(), 500u);
  for (size_t i = 0; i < ranges.size(); ++i) {
    EXPECT_LE(ranges[i].first, ranges[i].last);
    if (i > 0) {
      EXPECT_LT(ranges[i - 1].last, ranges[i].first);
    }
    EXPECT_NE(ranges[i].cls, CharClass::other);
  }
  EXPECT_EQ(char_class(U'a'), CharClass::letter);
  EXPECT_EQ(char_class(0x4E00), CharClass::letter);
  EXPECT_EQ(char_class(0x2160), CharClass::number);  // Roman numeral one: Nl
  EXPECT_EQ(char_class(0x0085), CharClass::space);   // NEL: in PCRE2's \v, category Cc
  EXPECT_EQ(char_class(0x180E), CharClass::space);   // in PCRE2's \h, category Cf
  EXPECT_EQ(char_class(0x200B), CharClass::other);   // zero-width space: Cf, not \s
  EXPECT_EQ(char_class(0x0378), CharClass::other);   // unassigned
  EXPECT_EQ(char_class(0x10FFFF), CharClass::other);
}

}  // namespace
}  // namespace wgpt::tokenizer
