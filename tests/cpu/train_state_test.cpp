// train_state.safetensors read back strictly: a damaged checkpoint is refused with the file and the
// part named (never "stoull"), and a refused checkpoint restores nothing.
#include "train/train_state.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "io_test_util.h"

namespace wgpt::train {
namespace {

using test::ScratchDir;

// A saved checkpoint of a tiny model after one optimizer step.
void save(const model::Model& model, const std::filesystem::path& dir) {
  std::vector<Parameter> params = parameters(model);
  AdamW optimizer(params, {});
  io::DirectoryUpdate update(dir);
  save_train_state(update, model, optimizer, {5, 99, 1.5});
  update.commit();
}

std::string restore_error(const io::TensorFile& file, const model::Model& model) {
  std::vector<Parameter> params = parameters(model);
  AdamW optimizer(params, {});
  try {
    restore_train_state(file, "run/train_state.safetensors", model, optimizer);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

class TrainStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    save(saved_, dir_.path());
    file_ = io::load_safetensors(dir_ / "train_state.safetensors");
  }
  void replace(const std::string& name, io::Shape shape, std::vector<float> values) {
    for (io::TensorData& tensor : file_.tensors) {
      if (tensor.name() == name) tensor = io::TensorData::from_floats(name, shape, values);
    }
  }
  ScratchDir dir_;
  model::Model saved_ = model::Model::random(model::named_config("1,2,8,8,11"), 1);
  model::Model other_ = model::Model::random(model::named_config("1,2,8,8,11"), 2);
  io::TensorFile file_;
};

TEST_F(TrainStateTest, RestoresWhatWasSaved) {
  std::vector<Parameter> params = parameters(other_);
  AdamW optimizer(params, {});
  const TrainState state = restore_train_state(file_, "x", other_, optimizer);
  EXPECT_EQ(state.step, 5u);
  EXPECT_EQ(state.sampler_state, 99u);
  EXPECT_EQ(params[0].value.to_floats(), parameters(saved_)[0].value.to_floats());
}

TEST_F(TrainStateTest, DamagedNumbersNameTheFileAndTheKey) {
  file_.metadata["step"] = "12abc";
  const std::string message = restore_error(file_, other_);
  EXPECT_NE(message.find("run/train_state.safetensors: the checkpoint's 'step' is \"12abc\", not "
                         "a whole number"),
            std::string::npos)
      << message;
  file_.metadata["step"] = "99999999999999999999999";  // past uint64
  EXPECT_NE(restore_error(file_, other_).find("not a whole number"), std::string::npos);
  file_.metadata["step"] = "5";
  file_.metadata["elapsed_s"] = "nan";
  EXPECT_NE(restore_error(file_, other_).find("'elapsed_s' is \"nan\", not a number of seconds"),
            std::string::npos);
}

TEST_F(TrainStateTest, DamagedTensorsAreRefusedAndNothingIsRestored) {
  const std::vector<float> before = parameters(other_)[0].value.to_floats();
  replace("adam_v.ln_f.bias", {8}, std::vector<float>(8, std::nanf("")));
  EXPECT_NE(restore_error(file_, other_).find("'adam_v.ln_f.bias' holds NaN or infinity"),
            std::string::npos);
  EXPECT_EQ(parameters(other_)[0].value.to_floats(), before);  // wte untouched
  replace("adam_v.ln_f.bias", {4}, std::vector<float>(4, 0.0f));
  EXPECT_NE(restore_error(file_, other_).find("is not a float tensor of shape [8]"),
            std::string::npos);
  file_.metadata.erase("config");
  EXPECT_NE(restore_error(file_, other_).find("is not a wgpt training checkpoint (no 'config')"),
            std::string::npos);
}

}  // namespace
}  // namespace wgpt::train
