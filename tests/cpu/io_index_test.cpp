// Header-only reading: the index of a checkpoint lists what loading it gives, and a model's
// checkpoint can be checked against its config from the index alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "index_check.h"
#include "io_test_util.h"
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

TEST(IoIndex, ListsWhatLoadingGivesForEveryFormat) {
  const auto safetensors = test::hf_fixture("char-tiny") / "model.safetensors";
  const auto fzm = test::source_dir() / "assets/brown-char/model.fzm";
  for (const auto& path : {safetensors, fzm}) {
    SCOPED_TRACE(path.string());
    const io::TensorIndex index = io::read_index(path);
    expect_same(index, io::load_tensors(path).index());
    EXPECT_NE(index.find("wte.weight"), nullptr);
  }
  EXPECT_EQ(io::read_index(fzm).tensors.front().dtype, io::DType::q4);
  // A GGUF file of every type wgpt decodes: its index names each tensor's stored dtype.
  const auto gguf = test::source_dir() / "tests/fuzz/corpus/fuzz_gguf/every_type";
  const io::TensorIndex index = io::read_index(gguf);
  expect_same(index, io::load_tensors(gguf).index());
  std::set<io::DType> dtypes;
  for (const io::TensorInfo& tensor : index.tensors) dtypes.insert(tensor.dtype);
  EXPECT_GE(dtypes.size(), 5u);
}

// Every input the fuzzers keep (their seeds and what they found, GGUF files among the fzm
// fuzzer's finds included), indexed and loaded: both give the same tensors or both refuse.
TEST(IoIndex, AgreesWithTheLoaderOnEveryCommittedFuzzInput) {
  const auto corpus = test::source_dir() / "tests/fuzz/corpus";
  size_t inputs = 0;
  for (const char* folder : {"fuzz_safetensors", "fuzz_fzm", "fuzz_gguf"}) {
    for (const auto& entry : std::filesystem::directory_iterator(corpus / folder)) {
      const std::vector<uint8_t> bytes = test::read_bytes(entry.path());
      EXPECT_TRUE(index_agrees(bytes)) << entry.path();
      ++inputs;
    }
  }
  EXPECT_GE(inputs, 9u);
}

TEST(IoIndex, ChecksACheckpointAgainstItsConfigWithoutItsData) {
  const auto dir = test::hf_fixture("char-tiny");
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
