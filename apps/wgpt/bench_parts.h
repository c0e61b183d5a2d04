#pragma once
// The parts of `wgpt bench` beyond ppN and tgN (bench_command.cpp): training throughput per
// precision, batched decoding, and the GPU time and TFLOP/s of every matrix product and attention
// pass a prefill and a training step run, against the device's peaks.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "wgpt/decoder.h"
#include "wgpt/gpu.h"
#include "wgpt/model.h"

namespace wgpt::cli {

// Mean, standard deviation and range of repeated timings.
struct Spread {
  double mean = 0, sd = 0, min = 0, max = 0;
};
Spread spread_of(const std::vector<double>& values);

struct TrainingBench {
  size_t batch = 8;
  size_t seq_len = 1024;
  size_t steps = 5;  // timed, after one untimed step (compiling the pipelines)
  // Then one more f32 step with its GPU time by kernel (print_kernel_profile): where a step goes
  // besides its products, which --products times alone.
  bool profile = false;
};

// Trains a random model of `config` on random tokens for each precision in turn (f32, then
// mixed), a fresh model and optimizer each, and prints ms per step, tokens/s, the first and last
// steps' losses and the loss band: the largest relative difference of mixed's loss from f32's at
// any step (the two precisions start from the same weights and train on the same batch).
void bench_training(const model::Config& config, const std::shared_ptr<gpu::Context>& context,
                    const TrainingBench& options);

// How far one precision's logits [positions, vocab] are from another's.
struct ParityReport {
  size_t positions = 0;
  double largest_difference = 0;  // of any logit
  double largest_magnitude = 0;   // of the reference's logits, for scale
  size_t argmax_equal = 0;        // positions whose largest logit is the same token in both
};
ParityReport logits_parity(const std::vector<float>& reference, const std::vector<float>& other,
                           size_t vocab);

// Runs a prefill of `ids` in f32 and in mixed precision and prints their logits' parity (then
// restores the model's precision).
void bench_parity(model::Model& model, const std::vector<uint32_t>& ids);

// Prints one row per product of a ppN forward pass (prompt_tokens > 0) and of a training step on
// train_rows positions (train_rows > 0; backward products included) for each precision: the kernel
// gemm_kernel chooses, µs per product, TFLOP/s and the share of the device's peak (f32 ~67 TFLOP/s
// for f32 kernels, f16 tensor ~990 for the tensor-core ones: an H200's), plus the prompt's
// attention pass (flash_attention.wgsl). Each product is also timed in f32 with k cut into each
// of `splits` slices (MatmulOptions::k_splits), for tuning the split chosen by shape.
void bench_products(const model::Model& model, size_t prompt_tokens, size_t train_rows,
                    size_t train_seq_len, const std::vector<size_t>& splits, size_t repetitions);

// Prints the kernel timings `context` collected over `steps` steps (gpu::Context::time_kernels),
// one row per kernel: dispatches, µs each and per step, and share. With timestamp queries the rows
// are the kernels' own GPU time; the rest of a step's time is the device's gaps between dependent
// dispatches. `what` names the step.
void print_kernel_profile(gpu::Context& context, size_t steps, const std::string& what);
// `--profile`'s table of each decode kernel as one of a chain of dependent dispatches
// (model::Decoder::time_kernel_chains) at position `cache_length`, which must be inside the
// context.
void print_kernel_chains(model::Decoder& decoder, size_t cache_length);

// For each count B of `row_counts`, B greedy sequences after prompts of `prompt_tokens`: ms per
// step and tokens/s of the batched step (model::BatchDecoder, the argmax on the GPU) against the
// same B sequences stepped one after another on the fused B = 1 path (model::Decoder), `steps`
// timed steps each after a warm-up. With `profile`, then the GPU time of a planned step of one
// sequence and of the most by kernel.
void bench_batched_decode(const model::Model& model, const std::vector<size_t>& row_counts,
                          size_t prompt_tokens, size_t steps, bool profile);

}  // namespace wgpt::cli
