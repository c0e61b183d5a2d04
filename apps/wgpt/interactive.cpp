#include "interactive.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "context_notes.h"
#include "standard_output.h"

namespace wgpt::cli {
namespace {

class InteractiveSession {
 public:
  InteractiveSession(const LoadedModel& loaded, const generate::GenerateOptions& options)
      : loaded_(loaded), session_(loaded.model, *loaded.tokenizer, options) {}

  // The first turn: `text`, written, then its continuation. Throws when the vocabulary cannot
  // encode it or it is longer than the context. False when the session ends (turn()).
  bool first(const std::string& text) {
    const std::vector<uint32_t> ids = loaded_.tokenizer->encode(text);
    session_.check(ids);
    return turn(ids, text, true);
  }

  // A typed line's turn: the line and its newline, after a newline where the text does not end
  // with one (each encoded on its own, so that an error's position is the line's), then their
  // continuation. A line the vocabulary cannot encode or the context cannot take is dropped, as
  // standard error says. False when the session ends (turn()).
  bool typed(const std::string& line) {
    const std::string separator = ends_line_ ? "" : "\n";
    std::vector<uint32_t> ids;
    try {
      ids = loaded_.tokenizer->encode(separator);
      const std::vector<uint32_t> line_ids = loaded_.tokenizer->encode(line + "\n");
      ids.insert(ids.end(), line_ids.begin(), line_ids.end());
      session_.check(ids);
    } catch (const Error& error) {
      std::fprintf(stderr, "wgpt: %s; the line is dropped, type another\n", error.what());
      return true;
    }
    return turn(ids, separator + line + "\n", echo_);
  }

  // Ends the output with a newline (on a terminal, turn() has written it).
  void close() {
    if (echo_ && !ends_line_) write_stdout("\n");
  }

 private:
  // Continues the text after `text` (its ids), written first where `shown`; false when the
  // context is full and may not shift, which ends the session.
  bool turn(std::span<const uint32_t> ids, const std::string& text, bool shown) {
    if (shown) write_stdout(text);
    ends_line_ = text.back() == '\n';
    const generate::GenerateResult result = session_.continue_with(ids, [&](std::string_view text) {
      show(text);
      return true;
    });
    show(unshown_rest(result));
    // On a terminal the next line is typed on a line of its own; the text the model reads gets
    // its newline with that line (typed()).
    if (!echo_ && !ends_line_) write_stdout("\n");
    report_context(loaded_.model.config().n_ctx, result);
    return result.stop != generate::StopReason::context_full;
  }
  void show(std::string_view text) {
    if (text.empty()) return;
    write_stdout(text);
    ends_line_ = text.back() == '\n';
  }
  // What a stop string cut off the turn's text: the stop string and what follows it in the last
  // token. The model has read it and continues after it, so it is shown.
  std::string unshown_rest(const generate::GenerateResult& result) const {
    if (result.stop != generate::StopReason::stop_string) return "";
    generate::Utf8Stream stream;
    std::string all = stream.push(loaded_.tokenizer->decode(result.ids));
    all += stream.finish();
    return all.starts_with(result.text) ? all.substr(result.text.size()) : "";
  }

  const LoadedModel& loaded_;
  generate::Session session_;
  const bool echo_ = !isatty(fileno(stdin));
  bool ends_line_ = true;  // the text is empty or ends with a newline
};

}  // namespace

void run_interactive(const LoadedModel& loaded, const std::string& first_text,
                     const generate::GenerateOptions& options) {
  InteractiveSession session(loaded, options);
  std::fprintf(stderr,
               "interactive: type a line and press Enter, and the model continues the text from "
               "it; an empty line or the end of input ends\n");
  if (!first_text.empty() && !session.first(first_text)) return session.close();
  for (std::string line; std::getline(std::cin, line) && !line.empty();) {
    if (!session.typed(line)) break;
  }
  session.close();
}

}  // namespace wgpt::cli
