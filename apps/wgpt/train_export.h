#pragma once
// `wgpt train --export-q4 DIR`: the trained model as it will be served — config.json, model.fzm
// (q4), the tokenizer files — with metrics.json, whose held-out loss is measured on the quantized
// file loaded back from DIR.

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "wgpt/model.h"
#include "wgpt/train.h"

namespace wgpt::cli {

struct ExportRecord {
  std::string command;  // the exact command line
  std::string data;     // the training text's path
  double elapsed_s = 0;
  double last_step_loss = 0;
  double validation_loss_f32 = 0;
  double tokens_per_s = 0;
};

void export_q4(const model::Model& model, const std::filesystem::path& dir,
               const std::map<std::string, std::string>& tokenizer_files,
               const train::TokenSplit& data, const train::TrainOptions& options,
               const ExportRecord& record);

}  // namespace wgpt::cli
