#pragma once
// Checks of the server's scheduler on its step engine, shared by the CPU and the GPU test
// binaries (a null context runs on the CPU), each driving the scheduler tick by tick: a
// sequence's tokens do not depend on what else runs beside it and are generate()'s; what a step
// reports leaves the tokens alone and agrees with the probe; a cancelled sequence leaves its slot
// at the next tick; the queue is bounded; a drain ends what waits and lets what runs finish.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "serve/engine_choice.h"
#include "serve/scheduler.h"
#include "test_support.h"
#include "wgpt/generate.h"
#include "wgpt/probe.h"

namespace wgpt::test::serve_checks {

using serve::Admission;
using serve::EventChannel;
using serve::FinishReason;
using serve::SequenceRequest;

using serve::EngineChoice;

// A model with its step engine and scheduler.
struct Rig {
  Rig(std::shared_ptr<gpu::Context> context, EngineChoice choice, size_t slots, size_t queue,
      std::optional<uint32_t> eos = std::nullopt)
      : model(model::Model::load(dir(), std::move(context))),
        tokenizer(tokenizer::load_tokenizer(dir())),
        engine(serve::make_step_engine(model, slots, choice)),
        scheduler(*engine, *tokenizer, eos, metrics, queue) {}

  static std::filesystem::path dir() { return source_dir() / "tests/fixtures/hf/char-tiny"; }

  std::shared_ptr<EventChannel> submit(SequenceRequest request) {
    auto channel = std::make_shared<EventChannel>();
    EXPECT_EQ(scheduler.submit({std::move(request)}, channel), Admission::accepted);
    return channel;
  }
  void run_to_end() {
    while (scheduler.tick()) {
    }
  }

  model::Model model;
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  serve::Metrics metrics;
  std::unique_ptr<serve::StepEngine> engine;
  serve::Scheduler scheduler;
};

// What a channel has delivered.
struct Outcome {
  std::vector<uint32_t> ids;
  std::string text;
  std::vector<serve::TokenRecord> records;
  std::optional<FinishReason> finish;
  std::optional<serve::SequenceFailure> error;

  explicit Outcome(EventChannel& channel) { take(channel); }
  void take(EventChannel& channel) {
    for (serve::SequenceEvent& event : channel.take(std::chrono::milliseconds(0))) {
      text += event.text;
      if (event.token) {
        ids.push_back(event.token->id);
        records.push_back(std::move(*event.token));
      }
      if (event.finish) finish = event.finish;
      if (event.error) error = event.error;
    }
  }
};

inline SequenceRequest sampled(const Rig& rig, const char* prompt, uint64_t seed,
                               size_t max_tokens) {
  SequenceRequest request;
  request.prompt = rig.tokenizer->encode(prompt);
  request.sampling = {.temperature = 0.9f, .top_k = 30, .top_p = 0.95f, .seed = seed};
  request.max_tokens = max_tokens;
  return request;
}

inline SequenceRequest greedy(const Rig& rig, const char* prompt, size_t max_tokens) {
  SequenceRequest request = sampled(rig, prompt, 0, max_tokens);
  request.sampling = {.greedy = true};
  return request;
}

// The tokens of one sequence alone in the scheduler.
inline Outcome alone(Rig& rig, const SequenceRequest& request) {
  auto channel = rig.submit(request);
  rig.run_to_end();
  return Outcome(*channel);
}

inline void expect_tokens_independent_of_the_batch(std::shared_ptr<gpu::Context> context,
                                                   EngineChoice choice = EngineChoice::sequential) {
  Rig rig(std::move(context), choice, 3, 8);
  const SequenceRequest watched = sampled(rig, "ROMEO:", 11, 14);
  const SequenceRequest watched_greedy = greedy(rig, "KING:", 14);
  const Outcome solo = alone(rig, watched);
  const Outcome solo_greedy = alone(rig, watched_greedy);
  ASSERT_EQ(solo.ids.size(), 14u);
  EXPECT_EQ(solo.finish, FinishReason::length);

  // generate() with the same options gives the same tokens and text.
  const generate::GenerateResult generated =
      generate::generate(rig.model, *rig.tokenizer, watched.prompt,
                         {.max_new_tokens = 14, .sampling = watched.sampling});
  EXPECT_EQ(solo.ids, generated.ids);
  EXPECT_EQ(solo.text, generated.text);

  // In company: one leaves after two tokens, one joins at tick 3, one at tick 5 (it waits for a
  // slot) and is cancelled at tick 8.
  auto early = rig.submit(sampled(rig, "JULIET:", 5, 2));
  auto watched_channel = rig.submit(watched);
  auto greedy_channel = rig.submit(watched_greedy);
  std::shared_ptr<EventChannel> late, cancelled;
  for (int tick = 0; rig.scheduler.tick(); ++tick) {
    if (tick == 3) late = rig.submit(sampled(rig, "First Citizen:", 7, 6));
    if (tick == 5) cancelled = rig.submit(sampled(rig, "MERCUTIO:", 9, 30));
    if (tick == 8) cancelled->cancel();
  }
  const Outcome crowded(*watched_channel), crowded_greedy(*greedy_channel);
  EXPECT_EQ(crowded.ids, solo.ids);
  EXPECT_EQ(crowded.text, solo.text);
  EXPECT_EQ(crowded_greedy.ids, solo_greedy.ids);
  EXPECT_EQ(Outcome(*early).ids.size(), 2u);
  EXPECT_EQ(Outcome(*late).ids.size(), 6u);
  EXPECT_FALSE(Outcome(*cancelled).finish.has_value()) << "cancelled before its 30 tokens";
}

// A step's reports (log-probability, top tokens, attention) do not change the tokens, and agree
// with the probe run over the same tokens.
inline void expect_reports_agree_with_the_probe(std::shared_ptr<gpu::Context> context,
                                                EngineChoice choice = EngineChoice::sequential) {
  Rig rig(std::move(context), choice, 2, 4);
  SequenceRequest plain = greedy(rig, "ROMEO:", 6);
  SequenceRequest reported = plain;
  reported.report = {.logprob = true, .top = 3, .attention = true};
  const Outcome without = alone(rig, plain);
  const Outcome with = alone(rig, reported);
  ASSERT_EQ(with.ids, without.ids);

  const model::Config& config = rig.model.config();
  model::KvCache cache = rig.model.new_cache();
  std::vector<uint32_t> next = reported.prompt;
  for (size_t i = 0; i < with.records.size(); ++i) {
    const serve::TokenRecord& record = with.records[i];
    const model::StepTrace trace = model::trace_step(rig.model, next, cache, {.top_n = 3});
    next = {record.id};
    ASSERT_EQ(record.kv_len, reported.prompt.size() + i) << "step " << i;
    ASSERT_EQ(record.attention.size(), config.n_layer * config.n_head * record.kv_len);
    for (size_t layer = 0; layer < config.n_layer; ++layer) {
      for (size_t head = 0; head < config.n_head; ++head) {
        const auto expected = trace.newest_attention(layer, head);
        const float* row = record.attention.data() + (layer * config.n_head + head) * record.kv_len;
        for (size_t key = 0; key < record.kv_len; ++key) {
          EXPECT_NEAR(row[key], expected[key], 1e-4) << "step " << i << " layer " << layer;
        }
      }
    }
    ASSERT_EQ(record.top.size(), 3u);
    EXPECT_EQ(record.top[0].id, record.id) << "greedy takes the most likely token";
    EXPECT_EQ(record.top[0].id, trace.top[0].id);
    EXPECT_NEAR(record.top[0].probability, trace.top[0].probability, 1e-4);
    EXPECT_NEAR(record.logprob, std::log(trace.top[0].probability), 1e-3);
  }
}

inline void expect_cancel_frees_the_slot_at_the_next_tick(
    std::shared_ptr<gpu::Context> context, EngineChoice choice = EngineChoice::sequential) {
  Rig rig(std::move(context), choice, 1, 2);
  auto first = rig.submit(sampled(rig, "ROMEO:", 1, 40));
  auto second = rig.submit(sampled(rig, "JULIET:", 2, 40));
  rig.scheduler.tick();
  rig.scheduler.tick();
  EXPECT_EQ(Outcome(*first).ids.size(), 2u);
  EXPECT_TRUE(Outcome(*second).ids.empty()) << "one slot: the second waits";
  EXPECT_EQ(rig.scheduler.load().queued, 1u);
  first->cancel();
  rig.scheduler.tick();
  EXPECT_EQ(Outcome(*second).ids.size(), 1u) << "the freed slot is taken at the same tick";
  EXPECT_TRUE(Outcome(*first).ids.empty()) << "a cancelled sequence runs no more steps";
  const serve::Load load = rig.scheduler.load();
  EXPECT_EQ(load.busy, 1u);
  EXPECT_EQ(load.queued, 0u);
  EXPECT_NE(rig.metrics.prometheus(load, serve::Metrics::Clock::now())
                .find("wgpt_sequences_cancelled_total 1\n"),
            std::string::npos);
}

inline void expect_a_bounded_queue(std::shared_ptr<gpu::Context> context,
                                   EngineChoice choice = EngineChoice::sequential) {
  Rig rig(std::move(context), choice, 1, 1);
  auto submit = [&](size_t n) {
    std::vector<SequenceRequest> requests(n, sampled(rig, "ROMEO:", 1, 4));
    return rig.scheduler.submit(std::move(requests), std::make_shared<EventChannel>());
  };
  // Room for the free slot and one place in the queue.
  EXPECT_EQ(submit(3), Admission::queue_full) << "a request's sequences join all or none";
  EXPECT_EQ(rig.scheduler.load().queued, 0u);
  EXPECT_EQ(submit(2), Admission::accepted);
  EXPECT_EQ(submit(1), Admission::queue_full);
  rig.scheduler.tick();  // the first takes the slot; the second still waits
  EXPECT_EQ(submit(1), Admission::queue_full);
  rig.run_to_end();
  EXPECT_EQ(submit(1), Admission::accepted);
}

inline void expect_a_drain(std::shared_ptr<gpu::Context> context,
                           EngineChoice choice = EngineChoice::sequential) {
  Rig rig(context, choice, 1, 2);
  auto running = rig.submit(sampled(rig, "ROMEO:", 1, 5));
  rig.scheduler.tick();
  auto waiting = rig.submit(sampled(rig, "JULIET:", 2, 5));
  rig.scheduler.drain(serve::Scheduler::Clock::now() + std::chrono::hours(1));
  const Outcome refused(*waiting);
  ASSERT_TRUE(refused.error.has_value()) << "what waits ends at once";
  EXPECT_EQ(refused.error->status, 503);
  EXPECT_EQ(rig.scheduler.submit({sampled(rig, "KING:", 3, 5)}, std::make_shared<EventChannel>()),
            Admission::shutting_down);
  rig.scheduler.run();  // returns once what runs has finished
  const Outcome finished(*running);
  EXPECT_EQ(finished.ids.size(), 5u);
  EXPECT_EQ(finished.finish, FinishReason::length);

  Rig late(context, choice, 1, 2);
  auto cut = late.submit(sampled(late, "ROMEO:", 1, 50));
  late.scheduler.tick();
  late.scheduler.drain(serve::Scheduler::Clock::now());  // no grace
  late.scheduler.run();
  const Outcome ended(*cut);
  EXPECT_EQ(ended.ids.size(), 1u);
  ASSERT_TRUE(ended.error.has_value());
  EXPECT_EQ(ended.error->status, 503);
}

// Stop sequences cut the text before them, the end-of-text token ends it unseen, max_tokens 0
// ends at once.
inline void expect_the_stop_conditions(std::shared_ptr<gpu::Context> context,
                                       EngineChoice choice = EngineChoice::sequential) {
  Rig rig(context, choice, 2, 4);
  const Outcome full = alone(rig, greedy(rig, "ROMEO:", 24));
  ASSERT_GE(full.text.size(), 12u);
  const std::string stop = full.text.substr(8, 3);
  SequenceRequest stopped = greedy(rig, "ROMEO:", 24);
  stopped.stop = {"never appears \xe2\x9c\x93", stop};
  const Outcome cut = alone(rig, stopped);
  EXPECT_EQ(cut.text, full.text.substr(0, full.text.find(stop)));
  EXPECT_EQ(cut.finish, FinishReason::stop);

  SequenceRequest nothing = greedy(rig, "ROMEO:", 0);
  auto channel = rig.submit(nothing);  // ends without a tick
  const Outcome empty(*channel);
  EXPECT_TRUE(empty.ids.empty());
  EXPECT_EQ(empty.finish, FinishReason::length);

  const uint32_t eos = full.ids[5];
  Rig with_eos(context, choice, 1, 1, eos);
  const Outcome ended = alone(with_eos, greedy(with_eos, "ROMEO:", 24));
  const size_t at =
      static_cast<size_t>(std::find(full.ids.begin(), full.ids.end(), eos) - full.ids.begin());
  EXPECT_EQ(ended.ids, std::vector<uint32_t>(full.ids.begin(), full.ids.begin() + at));
  EXPECT_EQ(ended.text, with_eos.tokenizer->decode(ended.ids));
  EXPECT_EQ(ended.finish, FinishReason::stop);
}

}  // namespace wgpt::test::serve_checks
