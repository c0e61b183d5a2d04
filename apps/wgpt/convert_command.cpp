// `wgpt convert`: a model from one format to another — a model directory (safetensors, sharded
// safetensors, fzm), a GGUF file, a shipped model or a hub id in the Hugging Face cache, to a
// model directory with safetensors (f32, f16, bf16) or fzm (q4), or a GGUF file (F32, F16, BF16,
// Q8_0, Q4_0) that llama.cpp can run.
#include <cstdio>

#include "commands.h"
#include "model_options.h"
#include "wgpt/model_files.h"

namespace wgpt::cli {
namespace {

struct ConvertCommand {
  std::string model;
  std::string output;
  std::string to;  // empty: from the output's name
  std::string dtype = "f32";
  CLI::Option* dtype_option = nullptr;
};

io::Format output_format(const ConvertCommand& command) {
  if (command.to == "fzm") return io::Format::fzm;
  if (command.to == "gguf") return io::Format::gguf;
  if (command.to == "safetensors") return io::Format::safetensors;
  return std::filesystem::path(command.output).extension() == ".gguf" ? io::Format::gguf
                                                                      : io::Format::safetensors;
}

io::DType matrices_dtype(const ConvertCommand& command, io::Format format) {
  if (format == io::Format::fzm) {
    if (command.dtype_option->count() > 0) {
      throw Error("--dtype does not apply to fzm, which stores every tensor as q4");
    }
    return io::DType::f32;
  }
  const std::map<std::string, io::DType> dtypes = {{"f32", io::DType::f32},
                                                   {"f16", io::DType::f16},
                                                   {"bf16", io::DType::bf16},
                                                   {"q8_0", io::DType::q8_0},
                                                   {"q4_0", io::DType::q4_0}};
  const io::DType dtype = dtypes.at(command.dtype);
  if (format == io::Format::safetensors && (dtype == io::DType::q8_0 || dtype == io::DType::q4_0)) {
    throw Error("--dtype " + command.dtype +
                " is a GGUF type: write a .gguf file (or --to gguf), or take f32, f16 or bf16");
  }
  return dtype;
}

const char* format_name(io::Format format) {
  switch (format) {
    case io::Format::fzm:
      return "fzm (q4)";
    case io::Format::gguf:
      return "GGUF";
    case io::Format::safetensors:
      break;
  }
  return "safetensors";
}

void run(const ConvertCommand& command) {
  const io::Format format = output_format(command);
  const io::DType matrices = matrices_dtype(command, format);
  const std::filesystem::path source = resolve_model(command.model);
  std::fprintf(stderr, "reading %s\n", source.string().c_str());
  const model::StoredModel stored = model::load_stored(source);
  const tokenizer::Vocabulary vocabulary = model::load_vocabulary(source);
  // Through a Model on the CPU: every tensor is checked against the config on the way.
  const model::Model model = model::Model::from_tensors(stored.config, stored.tensors);
  const model::Config& c = model.config();
  std::fprintf(stderr,
               "writing %s: %s, matrices %s; %zu layers, %zu heads, %zu wide, %zu positions, "
               "vocabulary %zu\n",
               command.output.c_str(), format_name(format),
               format == io::Format::fzm ? "q4" : command.dtype.c_str(), c.n_layer, c.n_head,
               c.n_embd, c.n_ctx, vocabulary.tokens.size());
  model::save_model(model, vocabulary, command.output, {.format = format, .matrices = matrices});
  std::fprintf(stderr, "wrote %s\n", command.output.c_str());
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto command = std::make_shared<ConvertCommand>();
  CLI::App* sub = app.add_subcommand(
      "convert", "Convert a model between safetensors, fzm (q4) and GGUF, its vocabulary included");
  add_model_option(*sub, command->model)->required();
  sub->add_option("-o,--output", command->output,
                  "What to write: a .gguf file, or a model directory")
      ->required();
  sub->add_option("--to", command->to,
                  "safetensors or fzm (a model directory), or gguf (one file); default: gguf when "
                  "the output ends in .gguf, else safetensors")
      ->check(CLI::IsMember({"safetensors", "fzm", "gguf"}));
  command->dtype_option =
      sub->add_option("--dtype", command->dtype,
                      "How the matrices (wte and each block's four products) are stored: f32, "
                      "f16, bf16, or for GGUF also q8_0 and q4_0 (a matrix whose rows are not a "
                      "multiple of 32 then takes f16). Biases, norms and wpe stay f32")
          ->check(CLI::IsMember({"f32", "f16", "bf16", "q8_0", "q4_0"}))
          ->capture_default_str();
  sub->callback([command] { run(*command); });
}

}  // namespace wgpt::cli
