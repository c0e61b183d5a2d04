#pragma once
// generate::Session, shared by the CPU and GPU test binaries: a text continued turn by turn with
// one KV cache generates, turn for turn, what one generate() from the whole context gives.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"
#include "wgpt/generate.h"

namespace wgpt::test {

inline std::filesystem::path session_fixture(const char* name) {
  return source_dir() / "tests" / "fixtures" / "hf" / name;
}

// What generate() runs for a turn of `ids` after `context`: the two, or when they do not fit the
// model's context, their newest half (all of `ids` when they are more) — the context shift.
inline std::vector<uint32_t> whole_context(std::span<const uint32_t> context,
                                           std::span<const uint32_t> ids, size_t n_ctx) {
  std::vector<uint32_t> whole(context.begin(), context.end());
  whole.insert(whole.end(), ids.begin(), ids.end());
  if (whole.size() > n_ctx) {
    const size_t keep = std::max(n_ctx / 2, ids.size());
    whole.erase(whole.begin(), whole.end() - static_cast<std::ptrdiff_t>(keep));
  }
  return whole;
}

// How many turns of a session shifted the context before they began, and while they generated.
struct SessionShifts {
  size_t before_turn = 0;
  size_t while_generating = 0;
};

// Runs `texts` (each encoded on its own) as a session's turns and checks each against generate()
// from the whole context on the same model: the same ids, text and stop; only the new tokens read
// (the turn's ids and the last token generated before them) unless the context shifted first; the
// context grown by exactly those. `options` must not stop at the end-of-text token. Returns the
// shifts.
inline SessionShifts expect_turns_equal_whole_runs(const model::Model& model,
                                                   const tokenizer::Tokenizer& tokenizer,
                                                   const std::vector<std::string>& texts,
                                                   const generate::GenerateOptions& options) {
  const size_t n_ctx = model.config().n_ctx;
  generate::Session session(model, tokenizer, options);
  SessionShifts shifts;
  for (size_t turn = 0; turn < texts.size(); ++turn) {
    SCOPED_TRACE("turn " + std::to_string(turn) + ": '" + texts[turn] + "'");
    const std::vector<uint32_t> ids = tokenizer.encode(texts[turn]);
    const std::vector<uint32_t> whole = whole_context(session.context(), ids, n_ctx);
    const bool shifts_first = session.context().size() + ids.size() > n_ctx;
    const size_t held = session.context().size();
    const generate::GenerateResult expected = generate::generate(model, tokenizer, whole, options);
    const generate::GenerateResult result = session.continue_with(ids);
    EXPECT_EQ(result.ids, expected.ids);
    EXPECT_EQ(result.text, expected.text);
    EXPECT_EQ(result.stop, expected.stop);
    EXPECT_EQ(result.prompt_ids, ids);
    EXPECT_EQ(result.context_shifts, expected.context_shifts + (shifts_first ? 1 : 0));
    if (shifts_first || turn == 0) {
      EXPECT_EQ(result.timings.prompt_tokens, whole.size()) << "the whole context is read";
    } else {
      EXPECT_EQ(result.timings.prompt_tokens, ids.size() + 1)
          << "only the turn's ids and the last generated token are read";
    }
    if (expected.context_shifts == 0) {
      std::vector<uint32_t> grown = whole;
      grown.insert(grown.end(), result.ids.begin(), result.ids.end());
      EXPECT_EQ(std::vector<uint32_t>(session.context().begin(), session.context().end()), grown);
      if (!shifts_first) {
        EXPECT_EQ(grown.size(), held + ids.size() + result.ids.size());
      }
    }
    shifts.before_turn += shifts_first ? 1 : 0;
    shifts.while_generating += expected.context_shifts;
  }
  return shifts;
}

inline generate::GenerateOptions session_options(size_t tokens,
                                                 const generate::SamplingOptions& sampling) {
  generate::GenerateOptions options;
  options.max_new_tokens = tokens;
  options.sampling = sampling;
  options.stop_at_end_of_text = false;
  options.context_shift = true;
  return options;
}

// Turns that outgrow char-tiny's context of 64: the context shifts before some turns and while
// others generate.
inline const std::vector<std::string>& long_session_texts() {
  static const std::vector<std::string> texts = {"ROMEO:\n",  "JULIET:\n", "NURSE:\n", "ROMEO:\n",
                                                 "JULIET:\n", "NURSE:\n",  "ROMEO:\n"};
  return texts;
}

}  // namespace wgpt::test
