// The smallest program on the wgpt library: load a model directory, continue a prompt greedily on
// the CPU reference backend, print the text. It builds against an installed wgpt, through
// find_package(wgpt) (CMakeLists.txt beside it) or pkg-config:
//   c++ -std=c++20 hello.cpp $(pkg-config --cflags --libs wgpt) -o hello
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "wgpt/generate.h"
#include "wgpt/model.h"
#include "wgpt/tokenizer.h"
#include "wgpt/version.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s MODEL_DIR PROMPT\n", argv[0]);
    return 2;
  }
  try {
    const wgpt::model::Model model = wgpt::model::Model::load(argv[1]);
    const auto tokenizer = wgpt::tokenizer::load_tokenizer(argv[1]);
    const std::vector<uint32_t> prompt = tokenizer->encode(argv[2]);
    wgpt::generate::GenerateOptions options;
    options.max_new_tokens = 16;
    options.sampling.greedy = true;
    const auto result = wgpt::generate::generate(model, *tokenizer, prompt, options);
    std::printf("wgpt %s: %s%s\n", std::string(wgpt::version()).c_str(), argv[2],
                result.text.c_str());
  } catch (const wgpt::Error& error) {
    std::fprintf(stderr, "hello: %s\n", error.what());
    return 1;
  }
  return 0;
}
