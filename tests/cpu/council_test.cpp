// The council on the CPU: the shipped experts load, a step equals the definition worked out from
// each expert's own forward pass, the router's weights for a fixed prompt are pinned, and experts
// that cannot be merged are refused with a message that says why.
#include "wgpt/council.h"

#include <gtest/gtest.h>

#include <fstream>

#include "council_checks.h"
#include "test_support.h"

namespace wgpt::test {
namespace {

#define REQUIRE_COUNCIL_FIXTURES()                                                           \
  const auto manifest = council_manifest();                                                  \
  if (!manifest) {                                                                           \
    GTEST_SKIP() << "../shared/fixtures is absent: the council's experts belong to another " \
                    "project";                                                               \
  }

const model::SamplingOptions kGreedy{.greedy = true};

TEST(Council, ShippedExpertsLoadFromTheManifest) {
  REQUIRE_COUNCIL_FIXTURES();
  council::Loaded loaded = council::load_manifest(*manifest);
  const council::Council& council = *loaded.council;
  ASSERT_EQ(council.size(), 4u);
  EXPECT_EQ(council.experts()[1].name, "Romeo & Juliet");
  EXPECT_EQ(council.config().n_embd, 128u);
  EXPECT_EQ(council.config().vocab_size, 65u);
  EXPECT_EQ(loaded.tokenizer->kind(), "char");
  EXPECT_EQ(council.beta(), council::kDefaultBeta);
}

// Four steps of `loaded` (β = 3) against the definition worked out from each expert's own pass.
void expect_steps_equal_the_definition(council::Loaded loaded) {
  council::Council& council = *loaded.council;
  council.set_beta(3.0f);
  std::vector<uint32_t> sequence = loaded.tokenizer->encode("ROMEO:\nWhat");
  std::span<const uint32_t> next = sequence;
  for (int step_index = 0; step_index < 4; ++step_index) {
    const council::Step step = council.step(next, kGreedy, 3);
    const ReferenceStep want = reference_step(council.experts(), sequence, 3.0f);
    EXPECT_NE(step.experts.front().weight, step.experts.back().weight) << "the experts agree";
    for (size_t i = 0; i < council.size(); ++i) {
      EXPECT_NEAR(step.experts[i].entropy, want.entropy[i], 1e-5) << "expert " << i;
      EXPECT_NEAR(step.experts[i].weight, want.weights[i], 1e-5) << "expert " << i;
      EXPECT_EQ(step.experts[i].top.size(), 3u);
    }
    for (size_t c = 0; c < want.hidden.size(); ++c)
      EXPECT_NEAR(step.hidden[c], want.hidden[c], 1e-5);
    for (size_t v = 0; v < want.logits.size(); ++v)
      EXPECT_NEAR(step.logits[v], want.logits[v], 1e-4);
    EXPECT_EQ(step.chosen, step.top.front().id);  // greedy
    size_t agreeing = 0;
    for (const council::ExpertStep& expert : step.experts)
      agreeing += expert.top[0].id == step.chosen;
    EXPECT_FLOAT_EQ(step.consensus, static_cast<float>(agreeing) / council.size());
    sequence.push_back(step.chosen);
    next = std::span(&sequence.back(), 1);
  }
  EXPECT_EQ(council.length(), sequence.size() - 1);
}

// On the project's own council, and on Forge's where ../shared/fixtures holds it.
TEST(Council, StepsEqualTheDefinitionFromEachExpertsOwnPass) {
  {
    SCOPED_TRACE("char-tiny council");
    expect_steps_equal_the_definition(char_tiny_council());
  }
  if (const auto manifest = council_manifest()) {
    SCOPED_TRACE("Forge's council");
    expect_steps_equal_the_definition(council::load_manifest(*manifest));
  }
}

// The router's weights after "ROMEO:\nI" with β = 2 (a position where the experts' certainty
// differs), pinned: a change to the experts' arithmetic, the entropy or the router shows here.
TEST(Council, RouterWeightsForAFixedPromptArePinned) {
  REQUIRE_COUNCIL_FIXTURES();
  council::Loaded loaded = council::load_manifest(*manifest);
  const council::Step step =
      loaded.council->step(loaded.tokenizer->encode("ROMEO:\nI"), kGreedy, 1);
  const std::vector<float> pinned = {0.413605f, 0.155657f, 0.247383f, 0.183355f};
  const std::vector<float> entropies = {0.831311f, 1.319941f, 1.088299f, 1.238055f};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(step.experts[i].weight, pinned[i], 1e-4) << "expert " << i;
    EXPECT_NEAR(step.experts[i].entropy, entropies[i], 1e-4) << "expert " << i;
  }
  EXPECT_EQ(loaded.tokenizer->decode(std::vector<uint32_t>{step.chosen}), " ");
}

model::Config tiny_config(size_t n_embd = 16, size_t vocab = 11, size_t n_layer = 2) {
  model::Config config;
  config.n_layer = n_layer;
  config.n_head = 2;
  config.n_embd = n_embd;
  config.n_ctx = 12;
  config.vocab_size = vocab;
  return config;
}

std::string refusal(std::vector<council::Expert> experts) {
  try {
    council::Council council(std::move(experts));
  } catch (const Error& error) {
    return error.what();
  }
  return "accepted";
}

TEST(Council, RefusesExpertsThatCannotBeMerged) {
  auto expert = [](std::string name, const model::Config& config, uint64_t seed) {
    return council::Expert{std::move(name), model::Model::random(config, seed)};
  };
  const std::string wider =
      refusal({expert("a", tiny_config(), 1), expert("b", tiny_config(32), 1)});
  EXPECT_NE(
      wider.find("expert b cannot join the council: it has a width (n_embd) of 32 where a has 16"),
      std::string::npos)
      << wider;
  const std::string vocab =
      refusal({expert("a", tiny_config(), 1), expert("b", tiny_config(16, 12), 1)});
  EXPECT_NE(vocab.find("vocabulary of 12 where a has 11"), std::string::npos) << vocab;
  const std::string table = refusal({expert("a", tiny_config(), 1), expert("b", tiny_config(), 2)});
  EXPECT_NE(table.find("a token table (wte) that differs from a's"), std::string::npos) << table;
  EXPECT_NE(refusal({}).find("at least one expert"), std::string::npos);
}

// Hidden states of one table share a basis whatever the depth: a deeper expert with the same token
// table joins, and the council's context is the smallest.
TEST(Council, AcceptsExpertsOfOtherDepthsThatShareTheTable) {
  model::Model shallow = model::Model::random(tiny_config(), 1);
  model::Config deep_config = tiny_config(16, 11, 3);
  deep_config.n_ctx = 20;
  io::TensorFile deep = {model::Model::random(deep_config, 2).to_tensor_data(), {}};
  for (io::TensorData& tensor : deep.tensors) {
    if (tensor.name() == "wte.weight") {
      const std::vector<float> table = shallow.weights().token_embedding.front().to_floats();
      tensor = io::TensorData::from_floats("wte.weight", tensor.shape(), table);
    }
  }
  std::vector<council::Expert> experts;
  experts.push_back({"shallow", std::move(shallow)});
  experts.push_back({"deep", model::Model::from_tensors(deep_config, deep)});
  council::Council council(std::move(experts));
  EXPECT_EQ(council.config().n_ctx, 12u);
  EXPECT_EQ(council.step(std::vector<uint32_t>{1, 2, 3}, kGreedy, 2).experts.size(), 2u);
  EXPECT_THROW(council.set_beta(-1.0f), Error);
}

TEST(Council, RejectsStepsPastItsContextWithoutRunningAnyExpert) {
  std::vector<council::Expert> experts;
  experts.push_back({"a", model::Model::random(tiny_config(), 1)});
  experts.push_back({"b", model::Model::random(tiny_config(), 1)});
  council::Council council(std::move(experts));
  council.step(std::vector<uint32_t>(10, 1), kGreedy, 1);
  EXPECT_THROW(council.step(std::vector<uint32_t>(3, 1), kGreedy, 1), Error);
  EXPECT_THROW(council.step(std::vector<uint32_t>{11}, kGreedy, 1), Error);
  EXPECT_EQ(council.length(), 10u);  // neither bad step moved a cache
}

// A model directory with a character vocabulary of `characters`.
std::filesystem::path write_char_model(const std::filesystem::path& dir,
                                       const std::string& characters) {
  model::Config config = tiny_config(16, characters.size());
  config.tokenizer = "char";
  model::Model::random(config, 1).save(dir);
  std::ofstream vocab(dir / "vocab.json");
  vocab << "{";
  for (size_t i = 0; i < characters.size(); ++i) {
    vocab << (i ? "," : "") << "\"" << characters[i] << "\":" << i;
  }
  vocab << "}";
  return dir;
}

TEST(Council, DirectoriesMustShareTheirTokenizer) {
  const auto root = std::filesystem::temp_directory_path() / "wgpt-council-test";
  std::filesystem::remove_all(root);
  const auto a = write_char_model(root / "a", "abcdefghijk");
  const auto b = write_char_model(root / "b", "abcdefghijk");
  const auto c = write_char_model(root / "c", "abcdefghijX");
  council::Loaded same = council::load_directories({a, b / ""});
  EXPECT_EQ(same.council->experts()[1].name, "b");
  try {
    council::load_directories({a, c});
    ADD_FAILURE() << "a council of different tokenizers was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("token 10 is \"X\" where the first has \"k\""),
              std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(root);
}

TEST(Council, GenerateSamplesAsTheDefinitionStreamsAndStopsAtTheContext) {
  std::vector<council::Expert> experts;
  experts.push_back({"a", model::Model::random(tiny_config(), 1)});
  experts.push_back({"b", model::Model::random(tiny_config(), 1)});
  council::Council council(std::move(experts));
  auto tokenizer = tokenizer::CharTokenizer::from_json(
      R"({"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8,"j":9,"k":10})");
  council::CouncilOptions options;
  options.generate.max_new_tokens = 50;
  options.generate.sampling = {
      .temperature = 0.9f, .top_k = 6, .repeat_penalty = 1.3f, .penalty_last_n = 8, .seed = 7};
  const std::vector<uint32_t> prompt = tokenizer->encode("abc");
  std::vector<uint32_t> chosen;
  std::string streamed;
  const generate::GenerateResult result = council::generate(
      council, *tokenizer, prompt, options,
      [&](size_t step, const council::Step& s) {
        EXPECT_EQ(step, chosen.size());
        // The sampling's definition, with the text so far as its context (the penalties' window
        // and the draw's index), as generate() chooses.
        std::vector<uint32_t> context = prompt;
        context.insert(context.end(), chosen.begin(), chosen.end());
        EXPECT_EQ(s.chosen, model::choose_token(s.logits, context, options.generate.sampling).token)
            << "step " << step;
        // Two copies of one model agree with each other: both or neither picked the sampled token.
        EXPECT_FLOAT_EQ(s.consensus, s.experts[0].top[0].id == s.chosen ? 1.0f : 0.0f);
        EXPECT_FLOAT_EQ(s.experts[0].weight, 0.5f);
        chosen.push_back(s.chosen);
        return true;
      },
      [&](std::string_view text) {
        streamed += text;
        return true;
      });
  EXPECT_EQ(result.stop, generate::StopReason::context_full);
  EXPECT_EQ(result.ids.size(), 12u - 3u + 1u);  // the last token needs no step of its own
  EXPECT_EQ(result.ids, chosen);
  EXPECT_EQ(streamed, tokenizer->decode(result.ids));
  EXPECT_EQ(result.text, streamed);
}

// With context_shift the run goes on past the context: the experts' caches start afresh from the
// newest half, and the sampling's context is the run's.
TEST(Council, GenerateShiftsTheContextWhenAsked) {
  std::vector<council::Expert> experts;
  experts.push_back({"a", model::Model::random(tiny_config(), 1)});
  experts.push_back({"b", model::Model::random(tiny_config(), 1)});
  council::Council council(std::move(experts));
  auto tokenizer = tokenizer::CharTokenizer::from_json(
      R"({"a":0,"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"i":8,"j":9,"k":10})");
  council::CouncilOptions options;
  options.generate.max_new_tokens = 30;
  options.generate.context_shift = true;
  options.generate.sampling = {.top_k = 4, .seed = 3};
  const generate::GenerateResult result =
      council::generate(council, *tokenizer, tokenizer->encode("abc"), options, {});
  EXPECT_EQ(result.stop, generate::StopReason::max_tokens);
  EXPECT_EQ(result.ids.size(), 30u);
  EXPECT_GT(result.context_shifts, 0u);
  EXPECT_LE(council.length(), 12u);
}

}  // namespace
}  // namespace wgpt::test
