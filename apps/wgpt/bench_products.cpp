// `wgpt bench --products`: the GPU time of each matrix product (and of the prompt's attention) of a
// prefill and a training step, in TFLOP/s against the device's peaks.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "bench_parts.h"
#include "wgpt/ops.h"

namespace wgpt::cli {
namespace {

// An H200's dense peaks: f32 on the CUDA cores, f16 with f32 sums on the tensor cores.
constexpr double kPeakF32 = 67.0;
constexpr double kPeakTensor = 990.0;

struct Product {
  std::string name;
  Shape a, b;
  ops::MatmulOptions options;
};

// The products of ppN (t rows) and of a training step (rows = sequences · seq_len): forward,
// then the two gradient products of each linear layer and of the tied LM head.
std::vector<Product> products(const model::Config& c, size_t t, size_t rows, size_t seq_len) {
  const size_t C = c.n_embd, V = c.vocab_size;
  std::vector<Product> out;
  if (t > 0) {
    const std::string p = "pp" + std::to_string(t) + " ";
    out.push_back({p + "qkv", {t, C}, {C, 3 * C}, {}});
    out.push_back({p + "attention projection", {t, C}, {C, C}, {}});
    out.push_back({p + "mlp up", {t, C}, {C, 4 * C}, {}});
    out.push_back({p + "mlp down", {t, 4 * C}, {4 * C, C}, {}});
  }
  if (rows > 0) {
    const std::string p = "train ";
    const size_t heads = c.n_head * rows / seq_len, hd = c.head_dim();
    for (const auto& [name, in, width] :
         {std::tuple{"qkv", C, 3 * C}, std::tuple{"attention projection", C, C},
          std::tuple{"mlp up", C, 4 * C}, std::tuple{"mlp down", 4 * C, C}}) {
      out.push_back({p + name, {rows, in}, {in, width}, {}});
      out.push_back({p + name + " dx", {rows, width}, {in, width}, {.transpose_b = true}});
      out.push_back({p + name + " dw", {rows, in}, {rows, width}, {.transpose_a = true}});
    }
    // Attention's products, triangular as training runs them (gpt2_loss.cpp), and their
    // gradients as matmul_backward forms them.
    const Shape per_head = {heads, seq_len, hd}, scores = {heads, seq_len, seq_len};
    using ops::Triangle;
    out.push_back({p + "scores q·kᵀ",
                   per_head,
                   per_head,
                   {.transpose_b = true, .triangle = Triangle::lower_output}});
    out.push_back({p + "scores dq", scores, per_head, {.triangle = Triangle::lower_a}});
    out.push_back(
        {p + "scores dk", scores, per_head, {.transpose_a = true, .triangle = Triangle::upper_a}});
    out.push_back({p + "probs·v", scores, per_head, {.triangle = Triangle::lower_a}});
    out.push_back({p + "probs·v dprobs",
                   per_head,
                   per_head,
                   {.transpose_b = true, .triangle = Triangle::lower_output}});
    out.push_back(
        {p + "probs·v dv", scores, per_head, {.transpose_a = true, .triangle = Triangle::upper_a}});
    out.push_back({p + "lm head", {rows, C}, {V, C}, {.transpose_b = true}});
    out.push_back({p + "lm head dx", {rows, V}, {V, C}, {}});
    out.push_back({p + "lm head dwte", {rows, V}, {rows, C}, {.transpose_a = true}});
  }
  return out;
}

// The product's arithmetic; of a triangular one only the triangle's side that is not zero (the
// diagonal included): the work the kernels have to do.
double flops(const Product& p) {
  const size_t batch = p.a.size() == 3 ? p.a[0] : 1;
  const size_t m = p.options.transpose_a ? p.a.back() : p.a[p.a.size() - 2];
  const size_t k = p.options.transpose_a ? p.a[p.a.size() - 2] : p.a.back();
  const size_t n = p.options.transpose_b ? p.b[p.b.size() - 2] : p.b.back();
  const double full = 2.0 * static_cast<double>(batch * m * k) * static_cast<double>(n);
  if (p.options.triangle == ops::Triangle::none) return full;
  return full * static_cast<double>(m + 1) / static_cast<double>(2 * m);
}

// GPU seconds per run of `record`: `repetitions` runs in one submit, timed from the submit to the
// GPU going idle (the host's recording excluded), after one untimed run.
double gpu_seconds(gpu::Context& context, size_t repetitions, const std::function<void()>& record) {
  record();
  context.finish();
  std::chrono::steady_clock::time_point start;
  {
    gpu::Scope scope(context);
    for (size_t r = 0; r < repetitions; ++r) record();
    start = std::chrono::steady_clock::now();
  }
  context.finish();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         static_cast<double>(repetitions);
}

void print_row(const std::string& name, const std::string& precision, const std::string& kernel,
               double seconds, std::optional<double> modelled_micros, double flop, bool tensor) {
  const double tflops = flop / seconds / 1e12;
  const std::string modelled =
      modelled_micros ? std::to_string(std::lround(*modelled_micros)) : "—";
  std::printf("| %s | %s | %s | %.1f | %s | %.1f | %.0f%% of %s |\n", name.c_str(),
              precision.c_str(), kernel.c_str(), seconds * 1e6, modelled.c_str(), tflops,
              100.0 * tflops / (tensor ? kPeakTensor : kPeakF32), tensor ? "f16 tensor" : "f32");
}

}  // namespace

void bench_products(const model::Model& model, size_t prompt_tokens, size_t train_rows,
                    size_t train_seq_len, const std::vector<size_t>& splits, size_t repetitions) {
  if (!model.on_gpu()) return;
  gpu::Context& context = *model.context();
  const std::shared_ptr<gpu::Context>& shared = model.context();
  std::printf(
      "\nGPU time per product (%zu back to back in one submit), against an H200's peaks:\n\n"
      "| product | precision | kernel | µs | model µs | TFLOP/s | share of peak |\n"
      "|---|---|---|---:|---:|---:|---:|\n",
      repetitions);
  for (const Product& p : products(model.config(), prompt_tokens, train_rows, train_seq_len)) {
    Tensor a = Tensor::empty_gpu(shared, p.a);
    Tensor b = Tensor::empty_gpu(shared, p.b);
    for (ops::Precision precision : {ops::Precision::f32, ops::Precision::mixed}) {
      ops::MatmulOptions options = p.options;
      options.precision = precision;
      const std::string kernel = ops::matmul_kernel(context.limits(), p.a, p.b, options);
      const double seconds = gpu_seconds(context, repetitions, [&] { ops::matmul(a, b, options); });
      print_row(p.name, precision == ops::Precision::f32 ? "f32" : "mixed", kernel, seconds,
                ops::matmul_modelled_micros(context.limits(), p.a, p.b, options), flops(p),
                kernel.find("tensor") != std::string::npos);
    }
    for (size_t split : splits) {
      ops::MatmulOptions options = p.options;
      options.k_splits = split;
      const std::string kernel = ops::matmul_kernel(context.limits(), p.a, p.b, options);
      const double seconds = gpu_seconds(context, repetitions, [&] { ops::matmul(a, b, options); });
      print_row(p.name, "f32, split " + std::to_string(split), kernel, seconds,
                ops::matmul_modelled_micros(context.limits(), p.a, p.b, options), flops(p), false);
    }
  }
  const model::Config& c = model.config();
  if (prompt_tokens > 0 && c.head_dim() == 64) {
    const size_t t = prompt_tokens;
    Tensor qkv = Tensor::empty_gpu(shared, {t, 3 * c.n_embd});
    Tensor keys = Tensor::empty_gpu(shared, {c.n_head, c.n_ctx, c.head_dim()});
    Tensor values = Tensor::empty_gpu(shared, {c.n_head, c.n_ctx, c.head_dim()});
    const double seconds = gpu_seconds(
        context, repetitions, [&] { ops::causal_attention(qkv, keys, values, 0, 0.125f); });
    // q·kᵀ and p·v over the causal half of the t × t scores, per head.
    const double flop =
        4.0 * static_cast<double>(c.n_head * c.head_dim()) * static_cast<double>(t * (t + 1) / 2);
    print_row("pp" + std::to_string(t) + " attention (causal)", "f32",
              std::string(ops::causal_attention_kernel(context)), seconds, std::nullopt, flop,
              false);
  }
}

}  // namespace wgpt::cli
