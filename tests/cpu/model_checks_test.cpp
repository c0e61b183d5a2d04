// Every value a model is made from is checked, and every refusal names what it refused: config
// fields (with the file), shapes that would divide by zero or overflow, non-finite weights (with
// an opt-out), tensors the model does not use, names and weight files that are ambiguous.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>

#include "io_test_util.h"
#include "wgpt/model.h"

namespace wgpt::model {
namespace {

using test::ScratchDir;

void expect_message(const std::function<void()>& body, const std::string& fragment) {
  const std::string message = test::error_message(body);
  EXPECT_NE(message.find(fragment), std::string::npos) << message;
}

Config tiny() { return named_config("1,2,8,8,11"); }

io::TensorFile tensors_of(const Config& config) {
  return {Model::random(config, 3).to_tensor_data(), {}};
}

TEST(ConfigChecks, NamesTheFileAndTheField) {
  const std::string base = R"("n_head": 2, "n_embd": 8, "n_positions": 8, "vocab_size": 11)";
  // A number nlohmann cannot hold used to surface as its own exception, without the file.
  expect_message([&] { Config::from_json(R"({"n_layer": 1e400, )" + base + "}", "d/config.json"); },
                 "d/config.json: not a valid config");
  expect_message([&] { Config::from_json(R"({"n_layer": 0, )" + base + "}", "d/config.json"); },
                 "d/config.json: field 'n_layer' must be a whole number from 1 to 1024, got 0");
  expect_message(
      [&] { Config::from_json(R"({"n_layer": 18446744073709551616, )" + base + "}", "c"); },
      "field 'n_layer' must be a whole number");
  expect_message(
      [&] {
        Config::from_json(
            R"({"n_layer": 1, "n_head": 0, "n_embd": 8, "n_ctx": 8, "vocab_size": 11})", "c");
      },
      "field 'n_head' must be a whole number from 1");
  expect_message(
      [&] {
        Config::from_json(
            R"({"n_layer": 1, "n_head": 3, "n_embd": 8, "n_ctx": 8, "vocab_size": 11})", "c");
      },
      "n_embd (8) must be a multiple of n_head (3)");
  expect_message(
      [&] { Config::from_json(R"({"n_layer": 1, )" + base + R"(, "eos_token_id": 11})", "c"); },
      "field 'eos_token_id' must be an id below vocab_size, got 11");
  expect_message(
      [&] {
        Config::from_json(R"({"n_layer": 1, )" + base + R"(, "layer_norm_epsilon": -1})", "c");
      },
      "field 'layer_norm_epsilon' must be a number in (0, 1)");
}

TEST(ConfigChecks, NamedShapesAreCheckedLikeFiles) {
  expect_message([] { named_config("1,0,8,8,11"); }, "model config '1,0,8,8,11': n_head must be");
  expect_message([] { named_config("1,2,8,8,11,"); }, "unknown model config");
  expect_message([] { named_config("1,2,8,8,-11"); }, "unknown model config");
  expect_message([] { named_config("2000,2,8,8,11"); }, "n_layer must be from 1 to 1024");
  EXPECT_EQ(named_config("1,2,8,8,11").parameter_count(), tiny().parameter_count());
}

TEST(ConfigChecks, EveryWayOfMakingAModelChecksItsConfig) {
  Config config = tiny();
  config.n_head = 0;  // used to reach a division by zero (SIGFPE in `wgpt train --heads 0`)
  expect_message([&] { Model::random(config, 1); }, "n_head must be from 1 to 8");
  expect_message([&] { Model::from_tensors(config, tensors_of(tiny())); }, "n_head must be");
}

TEST(WeightChecks, NonFiniteWeightsAreRefusedNamingTheTensorUnlessAllowed) {
  io::TensorFile file = tensors_of(tiny());
  for (io::TensorData& tensor : file.tensors) {
    if (tensor.name() != "h.0.mlp.c_fc.weight") continue;
    std::vector<float> values(tensor.floats().begin(), tensor.floats().end());
    values[5] = std::nanf("");
    tensor = io::TensorData::from_floats(tensor.name(), tensor.shape(), values);
  }
  expect_message([&] { Model::from_tensors(tiny(), file); },
                 "tensor 'h.0.mlp.c_fc.weight' holds nan at element 5 of 256");
  EXPECT_NO_THROW(Model::from_tensors(tiny(), file, nullptr, {.allow_non_finite = true}));
}

TEST(WeightChecks, TensorsTheModelDoesNotUseAreReported) {
  // A checkpoint of two layers under a config of one: the second layer used to be ignored.
  io::TensorFile file = tensors_of(named_config("2,2,8,8,11"));
  expect_message([&] { Model::from_tensors(tiny(), file); },
                 "holds 12 tensor(s) the model does not use ('h.1.ln_1.weight'");
  // HF's causal-mask buffers and a tied LM head are not weights of their own.
  io::TensorFile hub = tensors_of(tiny());
  hub.tensors.push_back(io::TensorData::from_floats("h.0.attn.bias", {1}, {1.0f}));
  const io::TensorData* wte = hub.find("wte.weight");
  hub.tensors.push_back(
      io::TensorData::from_floats("lm_head.weight", wte->shape(),
                                  std::vector<float>(wte->floats().begin(), wte->floats().end())));
  EXPECT_NO_THROW(Model::from_tensors(tiny(), hub));
  hub.tensors.back() = io::TensorData::from_floats("lm_head.weight", wte->shape(),
                                                   std::vector<float>(wte->floats().size(), 0.5f));
  expect_message([&] { Model::from_tensors(tiny(), hub); },
                 "lm_head.weight is not the token table");
}

TEST(WeightChecks, ANameWithAndWithoutThePrefixIsAmbiguous) {
  io::TensorFile file = tensors_of(tiny());
  const io::TensorData* wpe = file.find("wpe.weight");
  file.tensors.push_back(
      io::TensorData::from_floats("transformer.wpe.weight", wpe->shape(),
                                  std::vector<float>(wpe->floats().begin(), wpe->floats().end())));
  expect_message([&] { Model::from_tensors(tiny(), file); },
                 "holds both 'transformer.wpe.weight' and 'wpe.weight'");
}

TEST(ModelDirectory, AFileIsNotAModelDirectory) {
  ScratchDir dir;
  std::ofstream(dir / "model.safetensors") << "x";
  expect_message([&] { Model::load(dir / "model.safetensors"); },
                 "model.safetensors is not a directory: give the model directory");
  expect_message([&] { Model::load(dir / "none"); }, "does not exist");
}

TEST(ModelDirectory, TwoWeightFilesAreAmbiguousAndSavingLeavesOne) {
  ScratchDir dir;
  const Model model = Model::random(tiny(), 1);
  model.save(dir.path(), io::Format::fzm);
  model.save(dir.path(), io::Format::safetensors);  // replaces model.fzm, which it removes
  EXPECT_FALSE(std::filesystem::exists(dir / "model.fzm"));
  EXPECT_NO_THROW(Model::load(dir.path()));
  std::filesystem::copy_file(dir / "model.safetensors", dir / "model.fzm");
  expect_message([&] { Model::load(dir.path()); },
                 "holds both model.safetensors and model.fzm: which one to load is ambiguous");
}

}  // namespace
}  // namespace wgpt::model
