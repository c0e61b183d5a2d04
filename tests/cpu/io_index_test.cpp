// Header-only reading: the index of a checkpoint lists what loading it gives, and a model's
// checkpoint can be checked against its config from the index alone.
#include <gtest/gtest.h>

#include "test_support.h"
#include "wgpt/io.h"
#include "wgpt/model.h"

namespace wgpt {
namespace {

void expect_same(const io::TensorIndex& index, const io::TensorIndex& loaded) {
  ASSERT_EQ(index.tensors.size(), loaded.tensors.size());
  for (size_t i = 0; i < index.tensors.size(); ++i) {
    EXPECT_EQ(index.tensors[i].name, loaded.tensors[i].name);
    EXPECT_EQ(index.tensors[i].dtype, loaded.tensors[i].dtype);
    EXPECT_EQ(index.tensors[i].shape, loaded.tensors[i].shape);
  }
  EXPECT_EQ(index.metadata, loaded.metadata);
}

TEST(IoIndex, ListsWhatLoadingGivesForBothFormats) {
  const auto safetensors = test::source_dir() / "tests/fixtures/hf/char-tiny/model.safetensors";
  const auto fzm = test::source_dir() / "assets/brown-char/model.fzm";
  for (const auto& path : {safetensors, fzm}) {
    SCOPED_TRACE(path.string());
    const io::TensorIndex index = io::read_index(path);
    expect_same(index, io::load_tensors(path).index());
    EXPECT_NE(index.find("wte.weight"), nullptr);
  }
  EXPECT_EQ(io::read_index(fzm).tensors.front().dtype, io::DType::q4);
}

TEST(IoIndex, ChecksACheckpointAgainstItsConfigWithoutItsData) {
  const auto dir = test::source_dir() / "tests/fixtures/hf/char-tiny";
  model::Config config = model::Config::load(dir);
  const io::TensorIndex index = io::read_index(dir / "model.safetensors");
  EXPECT_NO_THROW(model::check_checkpoint(config, index));
  config.n_layer += 1;
  try {
    model::check_checkpoint(config, index);
    ADD_FAILURE() << "a checkpoint with a layer too few passed";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no tensor 'h.2.ln_1.weight'"), std::string::npos)
        << error.what();
  }
  config.n_layer -= 1;
  config.n_embd *= 2;
  EXPECT_THROW(model::check_checkpoint(config, index), Error);
}

}  // namespace
}  // namespace wgpt
