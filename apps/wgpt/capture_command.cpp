// `wgpt capture`: one forward pass's activations, saved under the fixtures' golden names.
#include <cstdio>

#include "commands.h"
#include "model_options.h"
#include "option_checks.h"
#include "text_output.h"

namespace wgpt::cli {
namespace {

struct CaptureCommand {
  ModelOptions model;
  std::string prompt;
  std::string ids;
  std::string output;
};

io::Shape shape_of(const Tensor& tensor) {
  return io::Shape(tensor.shape().begin(), tensor.shape().end());
}

void run(const CaptureCommand& command) {
  require_file(command.output, "-o", "safetensors");
  if (command.prompt.empty() == command.ids.empty()) {
    throw Error("give exactly one of -p PROMPT or --ids 1,2,3");
  }
  const std::vector<uint32_t> given_ids =
      command.ids.empty() ? std::vector<uint32_t>{} : parse_token_ids(command.ids, "--ids");
  LoadedModel loaded = load_model(command.model);
  const std::vector<uint32_t> ids =
      command.ids.empty() ? loaded.tokenizer->encode(command.prompt) : given_ids;
  model::KvCache cache = loaded.model.new_cache();
  model::ForwardOutput out =
      loaded.model.forward(ids, cache, {.capture_attention = true, .capture_hidden = true});

  std::vector<io::TensorData> tensors;
  const auto t = static_cast<int64_t>(ids.size());
  tensors.push_back(
      io::TensorData::from_ints("input_ids", {t}, std::vector<int64_t>(ids.begin(), ids.end())));
  tensors.push_back(
      io::TensorData::from_floats("logits", shape_of(out.logits), out.logits.to_floats()));
  for (size_t layer = 0; layer < out.attention.size(); ++layer) {
    tensors.push_back(io::TensorData::from_floats("attn." + std::to_string(layer),
                                                  shape_of(out.attention[layer]),
                                                  out.attention[layer].to_floats()));
  }
  for (size_t i = 0; i < out.hidden.size(); ++i) {
    tensors.push_back(io::TensorData::from_floats(
        "hidden." + std::to_string(i), shape_of(out.hidden[i]), out.hidden[i].to_floats()));
  }
  io::Metadata metadata;
  if (!command.prompt.empty()) metadata["prompt"] = command.prompt;
  io::save_safetensors(command.output, tensors, metadata);
  std::fprintf(stderr, "wrote %zu tensors for %zu tokens to %s\n", tensors.size(), ids.size(),
               command.output.c_str());
}

}  // namespace

void add_capture_command(CLI::App& app) {
  auto command = std::make_shared<CaptureCommand>();
  CLI::App* sub = app.add_subcommand(
      "capture", "Save one forward pass's activations (input_ids, logits, attn.L, hidden.i)");
  add_model_options(*sub, command->model);
  sub->add_option("-p,--prompt", command->prompt, "The prompt text");
  sub->add_option("--ids", command->ids, "Token ids instead of a prompt, e.g. 1,2,3");
  sub->add_option("-o,--output", command->output, "The .safetensors file to write")->required();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
