// Training windows, the held-out split and its evaluation.
#include <algorithm>
#include <string>

#include "wgpt/train.h"

namespace wgpt::train {
namespace {

// splitmix64: the same sequence under every standard library, so a seed names the same batches
// everywhere and a saved state resumes them.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void append_window(Batch& batch, const std::vector<uint32_t>& tokens, size_t start) {
  auto first = tokens.begin() + static_cast<std::ptrdiff_t>(start);
  auto length = static_cast<std::ptrdiff_t>(batch.seq_len);
  batch.inputs.insert(batch.inputs.end(), first, first + length);
  batch.targets.insert(batch.targets.end(), first + 1, first + 1 + length);
}

}  // namespace

TokenSplit split_tokens(const std::vector<uint32_t>& ids, size_t seq_len, double held_out) {
  const auto cut = static_cast<size_t>(static_cast<double>(ids.size()) * (1.0 - held_out));
  TokenSplit split{{ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(cut)},
                   {ids.begin() + static_cast<std::ptrdiff_t>(cut), ids.end()}};
  if (split.train.size() < seq_len + 1 || split.validation.size() < seq_len + 1) {
    throw Error("the text has " + std::to_string(ids.size()) + " tokens: too few to hold out " +
                std::to_string(static_cast<int>(held_out * 100)) + "% and still have a window of " +
                std::to_string(seq_len + 1) +
                " tokens in each part (use a longer text or a shorter context)");
  }
  return split;
}

Batch BatchSampler::next(const std::vector<uint32_t>& tokens, size_t sequences, size_t seq_len) {
  if (tokens.size() < seq_len + 1) throw Error("too few tokens for one training window");
  Batch batch{sequences, seq_len, {}, {}};
  const uint64_t starts = tokens.size() - seq_len;  // windows [s, s + seq_len]
  for (size_t i = 0; i < sequences; ++i) append_window(batch, tokens, splitmix64(state_) % starts);
  return batch;
}

double evaluate(const model::Model& model, const std::vector<uint32_t>& tokens, size_t sequences,
                size_t seq_len, size_t max_windows) {
  if (tokens.size() < seq_len + 1) throw Error("too few tokens for one evaluation window");
  const size_t last_start = tokens.size() - seq_len - 1;
  const size_t windows = std::max<size_t>(1, std::min(max_windows, last_start / seq_len + 1));
  double total = 0.0;
  for (size_t first = 0; first < windows; first += sequences) {
    Batch batch{std::min(sequences, windows - first), seq_len, {}, {}};
    for (size_t w = first; w < first + batch.sequences; ++w) {
      append_window(batch, tokens, windows == 1 ? 0 : w * last_start / (windows - 1));
    }
    for (float loss : token_losses(model, batch).to_floats()) total += loss;
  }
  return total / static_cast<double>(windows * seq_len);
}

}  // namespace wgpt::train
