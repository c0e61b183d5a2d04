// Every decode_* kernel equals its CPU reference (include/wgpt/decode_ops.h) through the one parity
// harness, over shapes the GPT-2 sizes never reach: widths that are not multiples of 64, head
// counts that are not powers of two, kv lengths that are not multiples of the 64-key chunk, an MLP
// input several batches of loads long — in every weight dtype, both workgroup layouts, and with
// subgroup reductions where the adapter has them. Where it has none (llvmpipe), the subgroup
// variants are still compiled and validated, on Dawn's Null adapter.
#include "wgpt/decode_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "emulated_subgroups.h"
#include "gpu/subgroup_layout.h"
#include "gpu/validation_context.h"
#include "op_parity_harness.h"
#include "test_support.h"
#include "wgpt/io.h"

namespace wgpt::ops::decode {
namespace {

struct DecodeShape {
  size_t width, n_head, n_ctx, position, vocab;
};

const std::vector<DecodeShape> kShapes = {
    {48, 3, 200, 130, 300},  // head_dim 16; kv_len 131: three chunks, the last of 3 keys
    {40, 5, 70, 64, 97},     // head_dim 8; kv_len 65: one key past the first chunk
    {576, 9, 80, 10, 70},    // head_dim 64; the MLP's 2304 rows: several batches of loads each
    {32, 2, 640, 600, 50},   // head_dim 16; kv_len 601: ten chunks, merged in two blocks of eight
};

struct Variant {
  DType weights;
  Options options;
  bool warm = false;    // the ops that can warm weights (Warm) warm some
  bool strips = false;  // the products' weights on the GPU in column strips (Layout) where they fit
  std::string name() const {
    return std::string(to_string(weights)) + (options.software ? ", software layout" : "") +
           (options.subgroups ? ", subgroups" : "") + (warm ? ", warming" : "") +
           (strips ? ", column strips" : "");
  }
};

// Every weight dtype, each with barrier and (where the adapter has them) subgroup reductions; and
// for the products, whose workgroup layout and weight layout matter, also the software adapter's
// workgroup layout and the weights in column strips.
std::vector<Variant> variants(bool products) {
  std::vector<Variant> all;
  const bool subgroups = subgroups_usable(*test::gpu_context());
  for (DType weights : {DType::f32, DType::f16, DType::bf16, DType::q4}) {
    all.push_back({weights, {.software = false}});
    if (products) {
      all.push_back({weights, {.software = true}});
      all.push_back({weights, {.software = false, .subgroups = subgroups}, false, true});
    }
    if (subgroups) all.push_back({weights, {.software = false, .subgroups = true}});
  }
  return all;
}

// A product case's weights (tensor `index`) in column strips for a strips variant, where they fit.
void strip_weights(test::ParityCase& c, const Variant& v, size_t index) {
  if (v.strips && fits_column_strips(v.weights, c.tensors[index].shape())) c.in_strips = {index};
}

// Copies of weights differ by at most a rounding: a GPU may fuse q4's code · scale + min into one.
constexpr float kOneRounding = 1e-6f;

uint32_t seed_counter = 1;

Tensor floats(const Shape& shape, float lo = -1.0f, float hi = 1.0f) {
  return Tensor::from_floats(test::random_floats(numel(shape), seed_counter++, lo, hi), shape);
}

Tensor weights(size_t rows, size_t cols, DType dtype, float scale = 0.2f) {
  return Tensor::from_floats(test::random_floats(rows * cols, seed_counter++, -scale, scale),
                             {rows, cols}, dtype);
}

// A LayerNorm's [gamma; beta] near (1, 0).
Tensor layernorm_params(size_t width) {
  std::vector<float> values = test::random_floats(2 * width, seed_counter++, -0.2f, 0.2f);
  for (size_t i = 0; i < width; ++i) values[i] += 1.0f;
  return Tensor::from_floats(std::move(values), {2, width});
}

Tensor step_at(size_t position, uint32_t token = 0) {
  return Tensor::from_u32({static_cast<uint32_t>(position), token}, {2});
}

size_t chunks(const DecodeShape& s) { return (s.n_ctx + kChunk - 1) / kChunk; }

std::string shape_name(const DecodeShape& s) {
  return "width " + std::to_string(s.width) + ", " + std::to_string(s.n_head) +
         " heads, position " + std::to_string(s.position);
}

// Sweeps shapes and variants; `make` builds a shape's case for a variant. Without subgroups on
// the test adapter, the subgroup variants are compiled and validated on the Null adapter (which
// runs nothing), so an edit of reduce_subgroup.wgsl cannot pass CI unbuilt.
void expect_parity(const std::function<test::ParityCase(const DecodeShape&, const Variant&)>& make,
                   bool products = false) {
  for (const DecodeShape& shape : kShapes) {
    for (const Variant& variant : variants(products)) {
      SCOPED_TRACE(shape_name(shape) + ", " + variant.name());
      EXPECT_TRUE(test::cpu_and_gpu_agree(make(shape, variant), test::gpu_context()));
    }
  }
  if (subgroups_usable(*test::gpu_context())) return;
  auto null_device = gpu::create_validation_context({16, 16, 16, 32});
  for (DType weights : {DType::f32, DType::f16, DType::bf16, DType::q4}) {
    const Variant variant{weights, {.software = false, .subgroups = true}};
    const test::ParityCase c = make(kShapes.front(), variant);
    std::vector<Tensor> on_device;
    for (const Tensor& t : c.tensors) on_device.push_back(t.to_gpu(null_device));
    EXPECT_NO_THROW({
      c.run(on_device);
      null_device->finish();
    }) << c.name
       << ", " << variant.name();
  }
}

TEST(DecodeOps, Embed) {
  expect_parity([](const DecodeShape& s, const Variant& v) {
    return test::ParityCase{
        "embed",
        {step_at(s.position, static_cast<uint32_t>(s.vocab - 1)),
         weights(s.vocab, s.width, v.weights), floats({s.n_ctx, s.width}), floats({s.width})},
        {3},
        [](const std::vector<Tensor>& t) { embed(t[0], t[1], t[2], t[3]).run(); },
        kOneRounding,
        kOneRounding};
  });
}

test::ParityCase qkv_case(const DecodeShape& s, const Variant& v) {
  const Shape cache = {s.n_head, s.n_ctx, s.width / s.n_head};
  test::ParityCase c{"qkv",
                     {step_at(s.position), floats({s.width}), layernorm_params(s.width),
                      weights(s.width, 3 * s.width, v.weights), floats({3 * s.width}),
                      floats({s.width}), floats(cache), floats(cache)},
                     {5, 6, 7},
                     [options = v.options](const std::vector<Tensor>& t) {
                       qkv({t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], 1e-5f}, options).run();
                     },
                     2e-5f,
                     1e-4f};
  strip_weights(c, v, 3);
  return c;
}

TEST(DecodeOps, Qkv) { expect_parity(qkv_case, true); }

// For a warming variant, a case's tensors end with weights to warm (`bytes` of them, a few
// warming workgroups' worth and a partial one) and their sink, neither an output.
void add_warm_tensors(test::ParityCase& c, const Variant& v, size_t bytes) {
  if (!v.warm) return;
  c.tensors.push_back(weights(1, bytes / 2, DType::f16));
  c.tensors.push_back(Tensor::zeros({256}, DType::u32));
}

// The Warm of a case's last two tensors, for a warming variant.
Warm warm_of(const std::vector<Tensor>& t, bool warm) {
  return warm ? Warm{t[t.size() - 2], t.back()} : Warm{};
}

test::ParityCase attention_chunks_case(const DecodeShape& s, const Variant& v) {
  const size_t head_dim = s.width / s.n_head;
  const Shape cache = {s.n_head, s.n_ctx, head_dim};
  test::ParityCase c{
      "attention_chunks",
      {step_at(s.position), floats({s.width}), floats(cache), floats(cache),
       floats({s.n_head, s.n_ctx}), floats({s.n_head, chunks(s), head_dim + 2})},
      {4, 5},
      [options = v.options, warm = v.warm](const std::vector<Tensor>& t) {
        attention_chunks({t[0], t[1], t[2], t[3], t[4], t[5]}, options, warm_of(t, warm)).run();
      },
      2e-5f,
      1e-4f};
  add_warm_tensors(c, v, 40'000);  // 16 KB a warming workgroup of 64 threads
  return c;
}

TEST(DecodeOps, AttentionChunks) { expect_parity(attention_chunks_case); }

test::ParityCase attention_output_case(const DecodeShape& s, const Variant& v) {
  const size_t head_dim = s.width / s.n_head;
  const Shape cache = {s.n_head, s.n_ctx, head_dim};
  // Chunk statistics as the chunk op leaves them.
  const Tensor step = step_at(s.position), scores = floats({s.n_head, s.n_ctx});
  const Tensor partials = floats({s.n_head, chunks(s), head_dim + 2});
  reference::attention_chunks(
      {step, floats({s.width}), floats(cache), floats(cache), scores, partials});
  test::ParityCase c{
      "attention_output",
      {step, partials, scores, weights(s.width, s.width, v.weights), floats({s.width}),
       floats({2, s.n_head, s.n_ctx}), floats({s.width})},
      {5, 6},
      [options = v.options](const std::vector<Tensor>& t) {
        attention_output({t[0], t[1], t[2], t[3], t[4], t[5], t[6], 1}, options).run();
      },
      2e-5f,
      1e-4f};
  strip_weights(c, v, 3);
  return c;
}

TEST(DecodeOps, AttentionOutput) { expect_parity(attention_output_case, true); }

test::ParityCase mlp_up_case(const DecodeShape& s, const Variant& v) {
  test::ParityCase c{
      "mlp_up",
      {floats({s.width}), layernorm_params(s.width), weights(s.width, 4 * s.width, v.weights),
       floats({4 * s.width}), floats({4 * s.width})},
      {4},
      [options = v.options, warm = v.warm](const std::vector<Tensor>& t) {
        mlp_up({t[0], t[1], t[2], t[3], t[4], 1e-5f}, options, warm_of(t, warm)).run();
      },
      2e-5f,
      1e-4f};
  add_warm_tensors(c, v, 150'000);  // 64 KB a warming workgroup of 256 threads
  strip_weights(c, v, 2);
  return c;
}

TEST(DecodeOps, MlpUp) { expect_parity(mlp_up_case, true); }

test::ParityCase mlp_down_case(const DecodeShape& s, const Variant& v) {
  test::ParityCase c{"mlp_down",
                     {floats({4 * s.width}), weights(4 * s.width, s.width, v.weights, 0.1f),
                      floats({s.width}), floats({s.width})},
                     {3},
                     [options = v.options, warm = v.warm](const std::vector<Tensor>& t) {
                       mlp_down({t[0], t[1], t[2], t[3]}, options, warm_of(t, warm)).run();
                     },
                     2e-5f,
                     1e-4f};
  add_warm_tensors(c, v, 150'000);
  strip_weights(c, v, 1);
  return c;
}

TEST(DecodeOps, MlpDown) { expect_parity(mlp_down_case, true); }

// The warming workgroups run and read the weights: each stores what it read into the sink.
TEST(DecodeOps, WarmingWorkgroupsReadTheWeights) {
  const Variant variant{DType::f16, {.software = false}, true};
  for (const auto& make : {attention_chunks_case, mlp_up_case, mlp_down_case}) {
    const test::ParityCase c = make(kShapes.front(), variant);
    std::vector<Tensor> on_gpu;
    for (const Tensor& t : c.tensors) on_gpu.push_back(t.to_gpu(test::gpu_context()));
    c.run(on_gpu);
    const std::vector<uint32_t> sink = on_gpu.back().to_u32();
    EXPECT_TRUE(std::any_of(sink.begin(), sink.end(), [](uint32_t word) { return word != 0; }))
        << c.name << ": no warming workgroup stored what it read";
  }
}

// Warming weights into the cache changes no output: the ops that warm, with warming workgroups
// past their own (f16 weights; the warming reads words, whatever the dtype).
TEST(DecodeOps, WarmingWeightsChangesNoOutput) {
  for (const DecodeShape& shape : kShapes) {
    for (Variant variant : variants(false)) {
      if (variant.weights != DType::f16) continue;
      variant.warm = true;
      SCOPED_TRACE(shape_name(shape) + ", " + variant.name());
      for (const auto& make : {attention_chunks_case, mlp_up_case, mlp_down_case}) {
        EXPECT_TRUE(test::cpu_and_gpu_agree(make(shape, variant), test::gpu_context()));
      }
    }
  }
}

// LM-head candidates: the same token exactly, the value and the sum of exponentials closely.
::testing::AssertionResult same_candidates(const Tensor& gpu, const Tensor& cpu) {
  const std::vector<uint32_t> a = gpu.to_u32(), b = cpu.to_u32();
  for (size_t g = 0; g < a.size(); g += 3) {
    if (a[g + 1] != b[g + 1] ||
        std::fabs(io::f32_from_bits(a[g]) - io::f32_from_bits(b[g])) > 1e-4f ||
        std::fabs(io::f32_from_bits(a[g + 2]) - io::f32_from_bits(b[g + 2])) >
            1e-4f * io::f32_from_bits(b[g + 2])) {
      return ::testing::AssertionFailure()
             << "candidate " << g / 3 << ": token " << a[g + 1] << " (" << io::f32_from_bits(a[g])
             << ", sum " << io::f32_from_bits(a[g + 2]) << ") against " << b[g + 1] << " ("
             << io::f32_from_bits(b[g]) << ", sum " << io::f32_from_bits(b[g + 2]) << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

test::ParityCase lm_head_case(const DecodeShape& s, const Variant& v) {
  const size_t groups = (s.vocab + kHeadRows - 1) / kHeadRows;
  test::ParityCase c{
      "lm_head",
      {floats({s.width}), layernorm_params(s.width), weights(s.vocab, s.width, v.weights, 1.0f),
       floats({s.vocab}), Tensor::zeros({groups, 3}, DType::u32)},
      {3, 4},
      [options = v.options](const std::vector<Tensor>& t) {
        lm_head({t[0], t[1], t[2], t[3], t[4], 1e-5f}, options).run();
      },
      2e-5f,
      1e-4f};
  c.compare = [](size_t index, const Tensor& gpu, const Tensor& cpu) {
    return index == 4 ? same_candidates(gpu, cpu) : test::all_close(gpu, cpu, 2e-5f, 1e-4f);
  };
  return c;
}

TEST(DecodeOps, LmHead) { expect_parity(lm_head_case); }

test::ParityCase argmax_case(const DecodeShape& s, const Variant& v) {
  const size_t groups = (s.vocab + kHeadRows - 1) / kHeadRows;
  const Tensor table = weights(s.vocab, s.width, v.weights, 1.0f);
  Tensor candidates = Tensor::zeros({groups, 3}, DType::u32);
  reference::lm_head(
      {floats({s.width}), layernorm_params(s.width), table, floats({s.vocab}), candidates, 1e-5f});
  return test::ParityCase{
      "argmax",
      {candidates, table, floats({s.n_ctx, s.width}), step_at(s.position), floats({s.width})},
      {3, 4},
      [options = v.options](const std::vector<Tensor>& t) {
        argmax({t[0], t[1], t[2], t[3], t[4]}, options).run();
      },
      kOneRounding,
      kOneRounding};
}

TEST(DecodeOps, ArgmaxChoosesAndEmbedsTheNextToken) { expect_parity(argmax_case); }

// Where the adapter has no subgroups (llvmpipe), the subgroup variants still run: in a context of
// their own whose kernels emulate subgroups (emulated_subgroups.h), laid out as on GPUs
// (consecutive lanes), which the variants assume, or otherwise (strided, or mixed: some blocks
// consecutive, some not), which the subgroup layout probe must tell apart.
using test::context_with_emulated_subgroups;
using test::EmulatedLayout;

TEST(DecodeOps, SubgroupVariantsRunWithEmulatedSubgroups) {
  const auto context = context_with_emulated_subgroups(EmulatedLayout::consecutive);
  // The warming workgroups leave before the reductions begin: run them too.
  for (bool warm : {false, true}) {
    const Variant variant{DType::f16, {.software = false, .subgroups = true}, warm};
    for (const DecodeShape& shape : kShapes) {
      SCOPED_TRACE(shape_name(shape) + ", " + variant.name());
      for (const auto& make : {qkv_case, attention_chunks_case, attention_output_case, mlp_up_case,
                               mlp_down_case, lm_head_case, argmax_case}) {
        EXPECT_TRUE(test::cpu_and_gpu_agree(make(shape, variant), context));
      }
    }
  }
}

TEST(DecodeOps, TheSubgroupLayoutProbeAcceptsOnlyConsecutiveSubgroups) {
  const std::pair<EmulatedLayout, const char*> layouts[] = {
      {EmulatedLayout::consecutive, "consecutive subgroups"},
      {EmulatedLayout::strided, "strided subgroups"},
      {EmulatedLayout::mixed, "some subgroups consecutive, some not"}};
  for (const auto& [layout, name] : layouts) {
    const auto context = context_with_emulated_subgroups(layout);
    EXPECT_EQ(gpu::probe_consecutive_subgroups(*context), layout == EmulatedLayout::consecutive)
        << name;
  }
}

TEST(DecodeOps, ArgmaxTakesTheLowestTokenOnTiesAndStopsAtTheLastPosition) {
  auto context = test::gpu_context();
  const float value = 2.5f;
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  // Groups 1 and 2 tie at 2.5: token 40 (group 1) wins over 70.
  const Tensor candidates = Tensor::from_u32({0, 3, 0, bits, 40, 0, bits, 70, 0}, {3, 3});
  const Tensor table = weights(96, 8, DType::f32);
  for (size_t position : {4, 15}) {
    const Tensor wpe = floats({16, 8});
    Tensor step = step_at(position, 9).to_gpu(context);
    Tensor x = Tensor::zeros({8}).to_gpu(context);
    argmax({candidates.to_gpu(context), table.to_gpu(context), wpe.to_gpu(context), step, x}, {})
        .run();
    EXPECT_EQ(step.to_u32(), (std::vector<uint32_t>{static_cast<uint32_t>(position + 1), 40}));
    // Past the last position there is no next embedding to write.
    EXPECT_EQ(x.to_floats()[0] == 0.0f, position == 15) << position;
  }
}

TEST(DecodeOps, RefuseShapesTheKernelsCannotTake) {
  const Tensor step = step_at(3);
  const Tensor cache = floats({3, 16, 12});  // head_dim 12: not a power of two
  EXPECT_THROW(
      attention_chunks({step, floats({36}), cache, cache, floats({3, 16}), floats({3, 1, 14})}, {}),
      Error);
  // A weight matrix whose width is not a multiple of 8.
  EXPECT_THROW(mlp_down({floats({12}), weights(12, 3, DType::f32), floats({3}), floats({3})}, {}),
               Error);
  // q4 weights whose rows are not a multiple of 4: the products read q4 four rows at a time.
  try {
    mlp_down({floats({10}), weights(10, 64, DType::q4), floats({64}), floats({64})}, {});
    ADD_FAILURE() << "a q4 matrix of 10 rows was taken";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of 4 rows"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wgpt::ops::decode
