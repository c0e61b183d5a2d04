// Models in other files: GGUF written and read back (every weight, the vocabulary, greedy tokens
// per stored type), sharded safetensors, and hub ids in the Hugging Face cache.

#include "wgpt/model_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <tuple>

#include "io_test_util.h"
#include "model_golden_checks.h"
#include "test_support.h"

namespace wgpt::model {
namespace {

std::vector<uint32_t> golden_prompt(const char* name) {
  const io::TensorFile golden = io::load_safetensors(test::hf_fixture(name) / "golden.safetensors");
  std::vector<uint32_t> ids;
  for (const int64_t id : golden.at("input_ids").ints()) ids.push_back(static_cast<uint32_t>(id));
  return ids;
}

std::vector<uint32_t> greedy(const Model& model, std::vector<uint32_t> ids, size_t steps) {
  KvCache cache = model.new_cache();
  std::vector<uint32_t> out;
  std::vector<uint32_t> next = std::move(ids);
  for (size_t step = 0; step < steps; ++step) {
    const std::vector<float> logits =
        model.forward(next, cache, {.all_logits = false}).logits.to_floats();
    next = {static_cast<uint32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin())};
    out.push_back(next.front());
  }
  return out;
}

// The largest |difference| of the prompt's logits between two models.
float max_logit_difference(const Model& a, const Model& b, const std::vector<uint32_t>& prompt) {
  KvCache cache_a = a.new_cache(), cache_b = b.new_cache();
  const std::vector<float> la = a.forward(prompt, cache_a).logits.to_floats();
  const std::vector<float> lb = b.forward(prompt, cache_b).logits.to_floats();
  float worst = 0;
  for (size_t i = 0; i < la.size(); ++i) worst = std::max(worst, std::fabs(la[i] - lb[i]));
  return worst;
}

Model write_and_reload(const Model& model, const tokenizer::Vocabulary& vocabulary,
                       const std::filesystem::path& path, io::DType matrices) {
  save_model(model, vocabulary, path, {.format = io::Format::gguf, .matrices = matrices});
  const StoredModel stored = load_stored(path);
  return Model::from_tensors(stored.config, stored.tensors);
}

TEST(ModelFiles, GgufF32KeepsEveryWeightAndTheVocabulary) {
  test::ScratchDir dir;
  const Model source = Model::load(test::hf_fixture("gpt2-tiny"));
  const tokenizer::Vocabulary vocabulary = load_vocabulary(test::hf_fixture("gpt2-tiny"));
  const Model reloaded = write_and_reload(source, vocabulary, dir / "tiny.gguf", io::DType::f32);
  const Config &was = source.config(), &is = reloaded.config();
  EXPECT_EQ(
      std::tie(is.n_layer, is.n_head, is.n_embd, is.n_ctx, is.vocab_size, is.tokenizer),
      std::tie(was.n_layer, was.n_head, was.n_embd, was.n_ctx, was.vocab_size, was.tokenizer));
  EXPECT_EQ(is.layer_norm_epsilon, was.layer_norm_epsilon);
  // The fixture's config.json names no EOS token; GGUF gives GPT-2's, which llama.cpp needs.
  EXPECT_EQ(is.eos_token_id, std::optional<uint32_t>(50256));
  const auto a = source.to_tensor_data(), b = reloaded.to_tensor_data();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name(), b[i].name());
    EXPECT_TRUE(std::equal(a[i].floats().begin(), a[i].floats().end(), b[i].floats().begin()))
        << a[i].name();
  }
  const tokenizer::Vocabulary read = load_vocabulary(dir / "tiny.gguf");
  EXPECT_EQ(read.tokens, vocabulary.tokens);
  EXPECT_EQ(read.merges, vocabulary.merges);
  // The vocabulary from GGUF metadata tokenizes as the files do.
  const auto from_files = tokenizer::load_tokenizer(test::hf_fixture("gpt2-tiny"));
  const auto from_gguf = tokenizer::make_tokenizer(read);
  const std::string text = "Hello, world! It's 2024 — naïve café <|endoftext|> 🤖";
  EXPECT_EQ(from_gguf->encode(text), from_files->encode(text));
  EXPECT_EQ(from_gguf->eos_id(), from_files->eos_id());
  // The model from GGUF equals HF transformers on the fixture, as the safetensors one does.
  test::expect_matches_golden(reloaded, test::hf_fixture("gpt2-tiny") / "golden.safetensors");
}

// Greedy tokens from F32, F16 and Q8_0 GGUF files equal those of the safetensors source; Q4_0's
// prompt logits stay within 0.25 of the source's. Why 0.25: Q4_0 has 16 levels per block where
// Q8_0 has 255, so its logit error should be about 16× Q8_0's — measured: Q8_0 0.0078 and Q4_0
// 0.112 on gpt2-tiny, 0.0034 and 0.050 on char-tiny — and 0.25 leaves twice that margin.
TEST(ModelFiles, GgufGreedyTokensMatchTheSourcePerStoredType) {
  test::ScratchDir dir;
  for (const char* name : {"gpt2-tiny", "char-tiny"}) {
    const Model source = Model::load(test::hf_fixture(name));
    const tokenizer::Vocabulary vocabulary = load_vocabulary(test::hf_fixture(name));
    const std::vector<uint32_t> prompt = golden_prompt(name);
    const std::vector<uint32_t> expected = greedy(source, prompt, 24);
    for (const io::DType dtype : {io::DType::f32, io::DType::f16, io::DType::q8_0}) {
      const Model converted = write_and_reload(source, vocabulary, dir / "m.gguf", dtype);
      EXPECT_EQ(greedy(converted, prompt, 24), expected)
          << name << " stored as " << io::dtype_name(dtype);
      RecordProperty(
          std::string(name) + "_" + std::string(io::dtype_name(dtype)) + "_max_logit_diff",
          std::to_string(max_logit_difference(source, converted, prompt)));
    }
    const Model q4 = write_and_reload(source, vocabulary, dir / "m.gguf", io::DType::q4_0);
    const float q4_difference = max_logit_difference(source, q4, prompt);
    RecordProperty(std::string(name) + "_Q4_0_max_logit_diff", std::to_string(q4_difference));
    EXPECT_LE(q4_difference, 0.25f) << name;
  }
}

TEST(ModelFiles, GgufOfACharacterModelKeepsItsVocabulary) {
  test::ScratchDir dir;
  const Model source = Model::load(test::hf_fixture("char-tiny"));
  const tokenizer::Vocabulary vocabulary = load_vocabulary(test::hf_fixture("char-tiny"));
  ASSERT_EQ(vocabulary.kind, tokenizer::Vocabulary::Kind::characters);
  save_model(source, vocabulary, dir / "char.gguf", {.format = io::Format::gguf});
  const tokenizer::Vocabulary read = load_vocabulary(dir / "char.gguf");
  EXPECT_EQ(read.kind, tokenizer::Vocabulary::Kind::characters);
  EXPECT_EQ(read.tokens, vocabulary.tokens);
  EXPECT_EQ(load_stored(dir / "char.gguf").config.tokenizer, "char");
}

TEST(ModelFiles, GgufNamesAndLayoutAreLlamaCpps) {
  test::ScratchDir dir;
  const Model source = Model::load(test::hf_fixture("char-tiny"));
  save_model(source, load_vocabulary(test::hf_fixture("char-tiny")), dir / "c.gguf",
             {.format = io::Format::gguf, .matrices = io::DType::q8_0});
  const io::GgufFile file = io::load_gguf(dir / "c.gguf");
  EXPECT_EQ(file.text("general.architecture"), "gpt2");
  EXPECT_EQ(file.integer("gpt2.block_count"), 2);
  EXPECT_EQ(file.integer("gpt2.feed_forward_length"), 128);
  EXPECT_EQ(file.integer("general.file_type"), 7);
  const auto type_of = [&](const char* name) {
    const io::GgufTensorInfo* tensor = file.find(name);
    EXPECT_NE(tensor, nullptr) << name;
    return tensor ? tensor->type : 999u;
  };
  EXPECT_EQ(file.find("blk.1.attn_qkv.weight")->shape, (io::Shape{96, 32}));  // [out, in]
  EXPECT_EQ(file.find("blk.0.ffn_down.weight")->shape, (io::Shape{32, 128}));
  EXPECT_EQ(file.find("token_embd.weight")->shape, (io::Shape{65, 32}));
  EXPECT_EQ(type_of("blk.0.ffn_up.weight"), 8u);  // Q8_0
  EXPECT_EQ(type_of("token_embd.weight"), 8u);
  EXPECT_EQ(type_of("position_embd.weight"), 0u);  // F32, as llama.cpp keeps it
  EXPECT_EQ(type_of("blk.0.attn_qkv.bias"), 0u);
  EXPECT_EQ(type_of("output_norm.weight"), 0u);
  EXPECT_EQ(file.tensors().size(), 4u + 2 * 12);
}

TEST(ModelFiles, GgufThatIsNotGpt2IsRefusedByName) {
  test::ScratchDir dir;
  io::GgufMetadata metadata;
  metadata["general.architecture"] = io::GgufValue::string("llama");
  io::save_gguf(dir / "llama.gguf", metadata, {});
  try {
    load_stored(dir / "llama.gguf");
    FAIL() << "a llama GGUF loaded";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("holds a 'llama' model"), std::string::npos)
        << error.what();
  }
}

// Two shards and HF's index, written from the fixture's tensors; `edit` may spoil the index.
void write_shards(
    const std::filesystem::path& dir,
    const std::function<void(nlohmann::json&)>& edit = [](nlohmann::json&) {}) {
  std::filesystem::copy(test::hf_fixture("char-tiny") / "config.json", dir / "config.json");
  const io::TensorFile all =
      io::load_safetensors(test::hf_fixture("char-tiny") / "model.safetensors");
  const size_t half = all.tensors.size() / 2;  // h.0.* in the first shard (names are sorted)
  io::save_safetensors(dir / "model-00001-of-00002.safetensors",
                       std::span(all.tensors).first(half));
  io::save_safetensors(dir / "model-00002-of-00002.safetensors",
                       std::span(all.tensors).subspan(half));
  nlohmann::json index = {{"metadata", {{"total_size", 0}}},
                          {"weight_map", nlohmann::json::object()}};
  for (size_t i = 0; i < all.tensors.size(); ++i) {
    index["weight_map"][all.tensors[i].name()] =
        i < half ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
  }
  edit(index);
  std::ofstream(dir / "model.safetensors.index.json") << index.dump();
}

TEST(ModelFiles, ShardedSafetensorsLoadLikeOneFile) {
  test::ScratchDir dir;
  write_shards(dir.path());
  const Model sharded = Model::load(dir.path());
  test::expect_matches_golden(sharded, test::hf_fixture("char-tiny") / "golden.safetensors");
}

TEST(ModelFiles, ShardIndexMistakesAreNamed) {
  const auto expect_error = [](const std::function<void(nlohmann::json&)>& edit,
                               const std::string& fragment) {
    test::ScratchDir dir;
    write_shards(dir.path(), edit);
    try {
      Model::load(dir.path());
      ADD_FAILURE() << "loaded despite the edit expected to give: " << fragment;
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
  };
  expect_error(
      [](nlohmann::json& index) { index["weight_map"]["wte.weight"] = "../x.safetensors"; },
      "not a file name beside the index");
  expect_error(
      [](nlohmann::json& index) { index["weight_map"]["wte.weight"] = "gone.safetensors"; },
      "gone.safetensors");
  expect_error(
      [](nlohmann::json& index) {
        index["weight_map"]["h.0.ln_1.weight"] = "model-00002-of-00002.safetensors";
      },
      "holds tensor 'h.0.ln_1.weight', which");
  expect_error([](nlohmann::json& index) { index["weight_map"].erase("h.0.ln_1.bias"); },
               "holds tensor 'h.0.ln_1.bias', which");
  expect_error(
      [](nlohmann::json& index) {
        index["weight_map"]["extra.weight"] = "model-00001-of-00002.safetensors";
      },
      "places tensor 'extra.weight' in model-00001-of-00002.safetensors, which does not hold it");
  expect_error([](nlohmann::json& index) { index["weight_map"] = nlohmann::json::array(); },
               "no \"weight_map\" object");
}

// A cache as huggingface_hub lays it out: files in blobs/, snapshot entries linking to them.
std::filesystem::path add_to_cache(const std::filesystem::path& hub, const std::string& folder,
                                   const std::string& revision) {
  const auto model = hub / folder;
  const auto snapshot = model / "snapshots" / revision;
  std::filesystem::create_directories(snapshot);
  std::filesystem::create_directories(model / "blobs");
  for (const char* name : {"config.json", "model.safetensors", "vocab.json"}) {
    const auto blob = model / "blobs" / (revision + "-" + name);
    std::filesystem::copy_file(test::hf_fixture("char-tiny") / name, blob,
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::create_symlink(std::filesystem::path("../../blobs") / blob.filename(),
                                    snapshot / name);
  }
  return snapshot;
}

TEST(ModelFiles, HubIdsResolveInTheHuggingFaceCache) {
  test::ScratchDir dir;
  test::Environment environment;
  environment.unset("HF_HUB_CACHE");
  environment.set("HF_HOME", dir.path().string());
  const auto hub = dir / "hub";
  EXPECT_EQ(hf_hub_cache(), hub);
  EXPECT_EQ(find_in_hf_cache("someone/tiny"), std::nullopt);

  const auto only = add_to_cache(hub, "models--someone--tiny", "0123abcd");
  EXPECT_EQ(find_in_hf_cache("someone/tiny"), only);
  test::expect_matches_golden(Model::load(*find_in_hf_cache("someone/tiny")),
                              test::hf_fixture("char-tiny") / "golden.safetensors");

  // A second snapshot: refs/main decides, and without it the choice is an error naming both.
  const auto newer = add_to_cache(hub, "models--someone--tiny", "4567ef01");
  EXPECT_THROW(find_in_hf_cache("someone/tiny"), Error);
  std::filesystem::create_directories(hub / "models--someone--tiny" / "refs");
  std::ofstream(hub / "models--someone--tiny" / "refs" / "main") << "4567ef01\n";
  EXPECT_EQ(find_in_hf_cache("someone/tiny"), newer);

  // Ids without an organisation, and what is not an id.
  add_to_cache(hub, "models--tiny", "89ab");
  EXPECT_EQ(find_in_hf_cache("tiny"), hub / "models--tiny" / "snapshots" / "89ab");
  for (const char* not_an_id : {"../hub", "a/b/c", ".hidden", "", "some one/tiny"}) {
    EXPECT_EQ(find_in_hf_cache(not_an_id), std::nullopt) << not_an_id;
  }

  // HF_HUB_CACHE wins over HF_HOME.
  environment.set("HF_HUB_CACHE", (dir / "elsewhere").string());
  EXPECT_EQ(hf_hub_cache(), dir / "elsewhere");
  EXPECT_EQ(find_in_hf_cache("someone/tiny"), std::nullopt);
  EXPECT_EQ(hf_cache_folder("someone/tiny"), dir / "elsewhere" / "models--someone--tiny");
}

}  // namespace
}  // namespace wgpt::model
