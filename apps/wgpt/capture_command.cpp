// `wgpt capture`: one forward pass's activations, saved under the fixtures' golden names (HF's
// output_attentions / output_hidden_states) or under the TransformerLens hook names `wgpt trace`
// uses (docs/probe.md).
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
  std::string names = "hf";
};

// The name of attention probabilities and hidden states. TransformerLens has a hook for every one
// of them: hidden[i] is the input of block i, and the last, after ln_f, is the final LayerNorm's
// output. (Block L's hook_resid_post is block L+1's hook_resid_pre; the last block's output before
// ln_f is not among HF's hidden states.)
struct CaptureNames {
  bool transformer_lens = false;
  size_t n_layer = 0;

  std::string attention(size_t layer) const {
    const std::string l = std::to_string(layer);
    return transformer_lens ? "blocks." + l + ".attn.hook_pattern" : "attn." + l;
  }
  std::string hidden(size_t index) const {
    const std::string i = std::to_string(index);
    if (!transformer_lens) return "hidden." + i;
    return index < n_layer ? "blocks." + i + ".hook_resid_pre" : "ln_final.hook_normalized";
  }
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

  const CaptureNames names{command.names == "tl", loaded.model.config().n_layer};
  std::vector<io::TensorData> tensors;
  const auto t = static_cast<int64_t>(ids.size());
  tensors.push_back(
      io::TensorData::from_ints("input_ids", {t}, std::vector<int64_t>(ids.begin(), ids.end())));
  tensors.push_back(
      io::TensorData::from_floats("logits", shape_of(out.logits), out.logits.to_floats()));
  for (size_t layer = 0; layer < out.attention.size(); ++layer) {
    tensors.push_back(io::TensorData::from_floats(
        names.attention(layer), shape_of(out.attention[layer]), out.attention[layer].to_floats()));
  }
  for (size_t i = 0; i < out.hidden.size(); ++i) {
    tensors.push_back(io::TensorData::from_floats(names.hidden(i), shape_of(out.hidden[i]),
                                                  out.hidden[i].to_floats()));
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
  sub->add_option("--names", command->names,
                  "hf (the default: attn.L and hidden.i, as HF's output_attentions and "
                  "output_hidden_states) or tl (TransformerLens hooks, as wgpt trace names them: "
                  "blocks.L.attn.hook_pattern, blocks.i.hook_resid_pre, ln_final.hook_normalized)")
      ->check(CLI::IsMember({"hf", "tl"}))
      ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
