// generate::Session on the CPU backend: a text continued turn by turn with one KV cache gives,
// turn for turn, the tokens of one generate() from the whole context (a prefill in pieces is
// bit-for-bit one prefill), past the context with the context shift, and refuses a turn it cannot
// take without changing anything.
#include <gtest/gtest.h>

#include "cpu/generate_session_checks.h"
#include "wgpt/generate.h"

namespace wgpt::generate {
namespace {

using test::session_fixture;

struct SessionFixture {
  explicit SessionFixture(const char* name)
      : model(model::Model::load(session_fixture(name))),
        tokenizer(tokenizer::load_tokenizer(session_fixture(name))) {}
  model::Model model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
};

TEST(GenerateSession, APrefillInPiecesIsBitForBitOnePrefill) {
  for (const char* name : {"char-tiny", "gpt2-tiny"}) {
    SCOPED_TRACE(name);
    const SessionFixture f(name);
    const std::vector<uint32_t> ids = f.tokenizer->encode("ROMEO:\nWhat say you, JULIET?\nNo");
    model::KvCache whole = f.model.new_cache();
    const std::vector<float> expected = f.model.forward(ids, whole).logits.to_floats();
    model::KvCache pieces = f.model.new_cache();
    std::vector<float> logits;
    for (size_t begin = 0, size = 1; begin < ids.size(); begin += size, size += 2) {
      const auto piece = std::span(ids).subspan(begin, std::min(size, ids.size() - begin));
      const std::vector<float> rows = f.model.forward(piece, pieces).logits.to_floats();
      logits.insert(logits.end(), rows.begin(), rows.end());
    }
    EXPECT_EQ(logits, expected) << "every position's logits, not merely close";
  }
}

TEST(GenerateSession, TurnsGenerateWhatOneRunFromTheWholeContextGives) {
  const std::vector<std::string> texts = {"ROMEO:\n", "\nJULIET:\n", "\nNURSE: good\n"};
  for (const char* name : {"char-tiny", "gpt2-tiny"}) {
    const SessionFixture f(name);
    for (const SamplingOptions& sampling :
         {SamplingOptions{.greedy = true}, SamplingOptions{.top_k = 10, .seed = 3},
          SamplingOptions{.temperature = 0.9f, .repeat_penalty = 1.3f, .seed = 4}}) {
      SCOPED_TRACE(std::string(name) + ", seed " + std::to_string(sampling.seed));
      const test::SessionShifts shifts = test::expect_turns_equal_whole_runs(
          f.model, *f.tokenizer, texts, test::session_options(9, sampling));
      EXPECT_EQ(shifts.before_turn + shifts.while_generating, 0u);
    }
  }
}

TEST(GenerateSession, PastTheContextTheShiftKeepsTheNewestHalf) {
  const SessionFixture f("char-tiny");
  for (const SamplingOptions& sampling :
       {SamplingOptions{.greedy = true}, SamplingOptions{.top_k = 10, .seed = 3}}) {
    const test::SessionShifts shifts = test::expect_turns_equal_whole_runs(
        f.model, *f.tokenizer, test::long_session_texts(), test::session_options(16, sampling));
    EXPECT_GE(shifts.before_turn, 1u) << "no turn began with a full context";
    EXPECT_GE(shifts.while_generating, 1u) << "no turn filled the context while generating";
  }
}

TEST(GenerateSession, AShiftBeforeATurnKeepsAllOfALongTurn) {
  const SessionFixture f("char-tiny");
  const size_t n_ctx = f.model.config().n_ctx;
  Session session(f.model, *f.tokenizer, test::session_options(4, {.greedy = true}));
  session.continue_with(f.tokenizer->encode("ROMEO:\nHe jests at scars that never\n"));
  const std::vector<uint32_t> line =
      f.tokenizer->encode("JULIET: what light through yonder window\n");
  ASSERT_GT(line.size(), n_ctx / 2);
  ASSERT_GT(session.context().size() + line.size(), n_ctx);
  const GenerateResult result = session.continue_with(line);
  EXPECT_EQ(result.context_shifts, 1u);
  EXPECT_EQ(result.timings.prompt_tokens, line.size()) << "the kept context is the line";
  ASSERT_EQ(session.context().size(), line.size() + result.ids.size());
  EXPECT_TRUE(std::equal(line.begin(), line.end(), session.context().begin()))
      << "the line is kept whole, at the start of the shifted context";
}

TEST(GenerateSession, ARefusedTurnChangesNothing) {
  const SessionFixture f("char-tiny");
  const size_t n_ctx = f.model.config().n_ctx;
  GenerateOptions options = test::session_options(20, {.greedy = true});
  options.context_shift = false;
  Session session(f.model, *f.tokenizer, options);
  const std::vector<uint32_t> first = f.tokenizer->encode("ROMEO:\n");
  session.continue_with(first);
  const std::vector<uint32_t> held(session.context().begin(), session.context().end());

  EXPECT_THROW(session.continue_with({}), Error);
  const std::vector<uint32_t> too_long(n_ctx + 1, first[0]);
  EXPECT_THROW(session.check(too_long), Error);
  const std::vector<uint32_t> no_room(n_ctx - held.size() + 1, first[0]);
  try {
    session.continue_with(no_room);
    ADD_FAILURE() << "a turn past the context was taken without context shift";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("context shift"), std::string::npos) << error.what();
  }
  EXPECT_EQ(std::vector<uint32_t>(session.context().begin(), session.context().end()), held);

  // The session goes on as if the refused turns had not been offered, until the context is full.
  const std::vector<uint32_t> next = f.tokenizer->encode("JULIET:\n");
  const GenerateResult result = session.continue_with(next);
  const GenerateResult expected =
      generate(f.model, *f.tokenizer, test::whole_context(held, next, n_ctx), options);
  EXPECT_EQ(result.ids, expected.ids);
  const GenerateResult last = session.continue_with(next);
  EXPECT_EQ(last.stop, StopReason::context_full);
  EXPECT_EQ(session.context().size(), n_ctx + 1);
  EXPECT_THROW(session.check(next), Error) << "a full context takes no more without a shift";
}

TEST(GenerateSession, AfterATurnThatFailedTheNextReadsTheWholeContext) {
  const SessionFixture f("char-tiny");
  const GenerateOptions options = test::session_options(12, {.greedy = true});
  Session session(f.model, *f.tokenizer, options);
  size_t pieces = 0;
  EXPECT_THROW(session.continue_with(f.tokenizer->encode("ROMEO:\n"),
                                     [&](std::string_view) {
                                       if (++pieces == 5) throw Error("the reader went away");
                                       return true;
                                     }),
               Error);
  const std::vector<uint32_t> held(session.context().begin(), session.context().end());
  const std::vector<uint32_t> next = f.tokenizer->encode("JULIET:\n");
  const GenerateResult result = session.continue_with(next);
  const std::vector<uint32_t> whole = test::whole_context(held, next, f.model.config().n_ctx);
  EXPECT_EQ(result.timings.prompt_tokens, whole.size());
  EXPECT_EQ(result.ids, generate(f.model, *f.tokenizer, whole, options).ids);
}

// Each turn is encoded on its own: the session's context is the turns' encodings one after the
// other (what the model was given), which with GPT-2's BPE differs from encoding the whole text
// where a run of whitespace spans two turns ("\n" then "\n\n" is three "\n" tokens; together,
// "\n\n" and "\n").
TEST(GenerateSession, EachTurnIsEncodedOnItsOwn) {
  const SessionFixture f("gpt2-tiny");
  Session session(f.model, *f.tokenizer, test::session_options(0, {.greedy = true}));
  const std::vector<std::string> texts = {"ROMEO: the end\n", "  indented\n", "\n\nJULIET: and\n"};
  std::vector<uint32_t> turn_by_turn;
  std::string whole_text;
  for (const std::string& text : texts) {
    const std::vector<uint32_t> ids = f.tokenizer->encode(text);
    session.continue_with(ids);
    turn_by_turn.insert(turn_by_turn.end(), ids.begin(), ids.end());
    whole_text += text;
  }
  EXPECT_EQ(std::vector<uint32_t>(session.context().begin(), session.context().end()),
            turn_by_turn);
  EXPECT_EQ(f.tokenizer->decode(turn_by_turn), whole_text);
  EXPECT_NE(f.tokenizer->encode(whole_text), turn_by_turn)
      << "'\\n' + '\\n\\nJULIET' encode apart as they would not together";
}

}  // namespace
}  // namespace wgpt::generate
