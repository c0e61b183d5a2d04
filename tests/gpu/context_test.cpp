// The GPU context's contract: scopes, readbacks, pools, counters, errors, concurrent creation.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cpu/io_test_util.h"
#include "gpu/kernel_sources.h"
#include "test_support.h"
#include "wgpt/gpu.h"
#include "wgpt/io.h"

namespace wgpt::gpu {
namespace {

std::vector<float> to_floats(const std::vector<std::byte>& bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

// Runs the embedded self_test kernel: out[i] = in[i] * 2 + offset.
void twice_plus(Context& context, const Buffer& in, const Buffer& out, uint32_t n, float offset) {
  const uint32_t params[] = {n, io::f32_bits(offset)};
  context.dispatch("self_test", params, {in, out}, {(n + 63) / 64});
}

// Polls `context` every millisecond until `done()` or `limit` has passed.
void poll_until(Context& context, std::chrono::milliseconds limit,
                const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    context.poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

Buffer upload_floats(Context& context, const std::vector<float>& values) {
  return context.upload(std::as_bytes(std::span(values)));
}

// The buffers of a chain of self_test dispatches (each reading the one before): the input
// a = {1, 2, 3}, then b and c of three floats each.
class GpuContextChain : public testing::Test {
 protected:
  std::shared_ptr<Context> context = test::gpu_context();
  Buffer a = upload_floats(*context, {1, 2, 3});
  Buffer b = context->create_storage(12);
  Buffer c = context->create_storage(12);
};

TEST(GpuContext, ReportsARealAdapterNeverNull) {
  auto context = test::gpu_context();
  EXPECT_NE(context->adapter_info().backend, "Null");
  EXPECT_FALSE(context->adapter_info().device.empty());
  EXPECT_GE(context->limits().max_storage_buffer_binding_size, 128u << 20);
  EXPECT_GT(context->limits().min_storage_buffer_offset_alignment, 0u);
}

TEST_F(GpuContextChain, NestedScopesSubmitOnceAndKeepOrder) {
  const Stats before = context->stats();
  {
    Scope outer(*context);
    twice_plus(*context, a, b, 3, 0.0f);  // b = 2a
    {
      Scope inner(*context);
      twice_plus(*context, b, c, 3, 1.0f);  // c = 4a + 1
    }
    EXPECT_EQ(context->stats().submits, before.submits) << "the inner scope must not submit";
    twice_plus(*context, c, b, 3, 0.0f);  // b = 8a + 2
  }
  const Stats after = context->stats();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.dispatches - before.dispatches, 3u);
  EXPECT_EQ(to_floats(context->readback(b, 0, 12)), (std::vector<float>{10, 18, 26}));
}

TEST_F(GpuContextChain, DispatchesPerSubmitSplitAScopeAndKeepOrderWithWrites) {
  EXPECT_EQ(context->dispatches_per_submit(), Context::kDefaultDispatchesPerSubmit);
  context->set_dispatches_per_submit(2);
  EXPECT_EQ(context->dispatches_per_submit(), 2u);
  const Stats before = context->stats();
  {
    Scope scope(*context, Submits::in_parts);
    twice_plus(*context, a, b, 3, 0.0f);  // b = 2a
    twice_plus(*context, b, c, 3, 1.0f);  // c = 4a + 1; the second dispatch submits both
    EXPECT_EQ(context->stats().submits - before.submits, 1u);
    // A queue write lands after what was submitted before it and before what follows.
    const std::vector<float> ten = {10, 10, 10};
    context->write(a, 0, std::as_bytes(std::span(ten)));
    twice_plus(*context, c, b, 3, 0.0f);  // b = 2c, c of the first submit
    twice_plus(*context, a, c, 3, 0.0f);  // c = 2 · 10
    twice_plus(*context, c, a, 3, 0.0f);  // a = 4 · 10, submitted when the scope closes
  }
  const Stats after = context->stats();
  EXPECT_EQ(after.submits - before.submits, 3u);
  EXPECT_EQ(after.dispatches - before.dispatches, 5u);
  EXPECT_EQ(to_floats(context->readback(b, 0, 12)), (std::vector<float>{10, 18, 26}));
  EXPECT_EQ(to_floats(context->readback(c, 0, 12)), (std::vector<float>{20, 20, 20}));
  EXPECT_EQ(to_floats(context->readback(a, 0, 12)), (std::vector<float>{40, 40, 40}));
  const Stats once = context->stats();
  {
    Scope scope(*context);  // a decode step's: Submits::once
    for (int i = 0; i < 5; ++i) twice_plus(*context, a, b, 3, 0.0f);
  }
  EXPECT_EQ(context->stats().submits - once.submits, 1u) << "a scope that did not ask is whole";
  const Stats nested = context->stats();
  {
    Scope outer(*context);
    Scope inner(*context, Submits::in_parts);  // a prompt's pass inside a probed step's scope
    for (int i = 0; i < 5; ++i) twice_plus(*context, a, b, 3, 0.0f);
  }
  EXPECT_EQ(context->stats().submits - nested.submits, 1u) << "the outermost scope decides";
  {
    Scope outer(*context, Submits::in_parts);
    Scope inner(*context);
    for (int i = 0; i < 5; ++i) twice_plus(*context, a, b, 3, 0.0f);
  }
  EXPECT_EQ(context->stats().submits - nested.submits, 4u) << "in parts of 2, 2 and 1";
  context->set_dispatches_per_submit(0);
  const Stats unsplit = context->stats();
  {
    Scope scope(*context, Submits::in_parts);
    for (int i = 0; i < 5; ++i) twice_plus(*context, a, b, 3, 0.0f);
  }
  EXPECT_EQ(context->stats().submits - unsplit.submits, 1u) << "0: one submit per scope";
  context->set_dispatches_per_submit(Context::kDefaultDispatchesPerSubmit);
}

TEST(GpuContext, ReadbackInsideAScopeSeesEarlierWrites) {
  auto context = test::gpu_context();
  Buffer a = upload_floats(*context, {1, 2, 3, 4});
  Buffer b = context->create_storage(16);
  Scope scope(*context);
  twice_plus(*context, a, b, 4, 0.5f);
  EXPECT_EQ(to_floats(context->readback(b, 0, 16)), (std::vector<float>{2.5, 4.5, 6.5, 8.5}));
  twice_plus(*context, b, a, 4, 0.0f);  // recording goes on after the readback
  EXPECT_EQ(to_floats(context->readback(a, 4, 8)), (std::vector<float>{9, 13}));
}

TEST(GpuContext, CopiesKeepOrderWithDispatchesInOneSubmit) {
  auto context = test::gpu_context();
  Buffer a = upload_floats(*context, {1, 2, 3, 4});
  Buffer b = context->create_storage(16);
  Buffer c = context->create_storage(24);
  Buffer d = context->create_storage(20);
  const Stats before = context->stats();
  {
    Scope scope(*context);
    twice_plus(*context, a, b, 4, 0.0f);    // b = 2a
    context->copy({b, 4, 8}, {c, 12, 8});   // c[3..5) = b[1..3): sees the dispatch
    context->copy({a, 0, 12}, {c, 0, 12});  // c[0..3) = a[0..3)
    twice_plus(*context, c, d, 5, 0.5f);    // then a dispatch sees the copies
  }
  EXPECT_EQ(context->stats().submits - before.submits, 1u);
  EXPECT_EQ(to_floats(context->readback(d, 0, 20)), (std::vector<float>{2.5, 4.5, 6.5, 8.5, 12.5}));
  // Outside a scope a copy is submitted at once.
  context->copy({b}, {c, 4});
  EXPECT_EQ(to_floats(context->readback(c, 4, 16)), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(GpuContextChain, CaptureBindsDispatchesThatReplayLaterAndRefusesTheRest) {
  const Stats before = context->stats();
  const std::vector<PreparedDispatch> pass = context->capture([&] {
    Scope scope(*context);
    twice_plus(*context, a, b, 3, 0.0f);  // b = 2a
    twice_plus(*context, b, c, 3, 1.0f);  // c = 4a + 1
  });
  ASSERT_EQ(pass.size(), 2u);
  EXPECT_EQ(context->stats().dispatches, before.dispatches) << "nothing ran";
  EXPECT_EQ(context->stats().submits, before.submits);
  for (float first : {1.0f, 5.0f}) {
    context->write(a, 0, std::as_bytes(std::span(&first, 1)));
    {
      Scope scope(*context);
      for (const PreparedDispatch& dispatch : pass) context->dispatch(dispatch);
    }
    EXPECT_EQ(to_floats(context->readback(c, 0, 12)), (std::vector<float>{4 * first + 1, 9, 13}));
  }
  EXPECT_EQ(context->stats().dispatches - before.dispatches, 4u);
  const float one = 1;
  const auto refused = [&](const std::function<void()>& record, const char* what) {
    try {
      context->capture(record);
      ADD_FAILURE() << what << " was captured";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(what), std::string::npos) << error.what();
    }
  };
  refused([&] { context->write(a, 0, std::as_bytes(std::span(&one, 1))); }, "a queue write");
  refused([&] { context->copy({a}, {b}); }, "a copy");
  refused([&] { context->readback(a, 0, 4); }, "a readback");
  refused([&] { context->capture([] {}); }, "a capture");
  // A refusal ends the capture (and wrote nothing): dispatches run again.
  twice_plus(*context, a, b, 3, 0.0f);
  EXPECT_EQ(to_floats(context->readback(b, 0, 12)), (std::vector<float>{10, 4, 6}));
}

TEST(GpuContext, KernelTimingTimesEachDispatch) {
  auto context = test::gpu_context();
  Buffer a = upload_floats(*context, {1, 2, 3, 4});
  Buffer b = context->create_storage(16);
  context->time_kernels(true);
  const Stats before = context->stats();
  {
    Scope scope(*context);
    twice_plus(*context, a, b, 4, 0.0f);
    twice_plus(*context, b, a, 4, 1.0f);
  }
  // Timestamps time the dispatches inside the scope's one submit; host timing submits each.
  EXPECT_EQ(context->stats().submits - before.submits, context->kernel_timings_exact() ? 1u : 2u);
  context->time_kernels(false);
  twice_plus(*context, a, b, 4, 0.0f);  // not timed
  const std::vector<KernelTiming> rows = context->kernel_timings();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].kernel, "self_test");
  EXPECT_EQ(rows[0].dispatches, 2u);
  EXPECT_GT(rows[0].microseconds, 0.0);
  // a = 2b + 1 = 4a + 1
  EXPECT_EQ(to_floats(context->readback(a, 0, 16)), (std::vector<float>{5, 9, 13, 17}));
}

TEST(GpuContext, BadCopiesAreClearErrors) {
  auto context = test::gpu_context();
  Buffer a = context->create_storage(16);
  Buffer b = context->create_storage(8);
  EXPECT_THROW(context->copy({a, 2, 4}, {b, 0, 4}), Error);    // unaligned offset
  EXPECT_THROW(context->copy({a, 0, 6}, {b, 0, 6}), Error);    // unaligned size
  EXPECT_THROW(context->copy({a, 0, 12}, {b, 0, 12}), Error);  // past the destination
  EXPECT_THROW(context->copy({a, 8, 12}, {b, 0, 4}), Error);   // past the source, and sizes differ
  EXPECT_THROW(context->copy({a, 0, 8}, {b, 0, 4}), Error);    // sizes differ
}

TEST(GpuContext, ReadbackManyReturnsRegionsInOrderInOneSubmitAndOneWait) {
  auto context = test::gpu_context();
  std::vector<float> values(300);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  Buffer a = upload_floats(*context, values);
  Buffer b = context->create_storage(values.size() * 4);
  Scope scope(*context);
  twice_plus(*context, a, b, 300, 0.0f);
  const Stats before = context->stats();
  auto regions = context->readback_many({{b, 1000, 8}, {a, 4, 4}, {b, 0, 4}, {a, 6, 3}});
  const Stats after = context->stats();
  EXPECT_EQ(after.submits - before.submits, 1u);
  EXPECT_EQ(after.fence_waits - before.fence_waits, 1u);
  ASSERT_EQ(regions.size(), 4u);
  EXPECT_EQ(to_floats(regions[0]), (std::vector<float>{500, 502}));
  EXPECT_EQ(to_floats(regions[1]), (std::vector<float>{1}));
  EXPECT_EQ(to_floats(regions[2]), (std::vector<float>{0}));
  // An unaligned region: bytes 6..9 of [0.0f, 1.0f, ...].
  std::vector<std::byte> expected(3);
  std::memcpy(expected.data(), reinterpret_cast<const std::byte*>(values.data()) + 6, 3);
  EXPECT_EQ(regions[3], expected);
}

TEST(GpuContext, AsyncReadbackCompletesThroughPoll) {
  auto context = test::gpu_context();
  Buffer a = upload_floats(*context, {7, 8});
  std::optional<std::vector<float>> result;
  context->readback_async(
      a, 0, 8, [&](Result<std::vector<std::byte>> bytes) { result = to_floats(bytes.value()); });
  poll_until(*context, std::chrono::seconds(30), [&] { return result.has_value(); });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, (std::vector<float>{7, 8}));
}

// Asynchronous readbacks inside a scope join the scope's one submit: each sees what was recorded
// before it and not what comes after, and none completes before the scope closes.
TEST(GpuContext, AsyncReadbacksInsideAScopeShareItsSubmit) {
  auto context = test::gpu_context();
  Buffer a = upload_floats(*context, {1, 2, 3, 4});
  Buffer b = context->create_storage(16);
  std::vector<std::optional<std::vector<float>>> results(2);
  auto read_into = [&](size_t index) {
    return [&results, index](Result<std::vector<std::byte>> bytes) {
      results[index] = to_floats(bytes.value());
    };
  };
  const Stats before = context->stats();
  {
    Scope scope(*context);
    twice_plus(*context, a, b, 4, 0.5f);  // b = 2a + 0.5
    context->readback_async(b, 0, 16, read_into(0));
    twice_plus(*context, a, b, 4, 1.0f);  // b = 2a + 1: after the first readback's copy
    context->readback_async(b, 4, 8, read_into(1));
    context->poll();
    EXPECT_FALSE(results[0] || results[1]) << "a readback completed before its submit";
  }
  EXPECT_EQ(context->stats().submits - before.submits, 1u);
  poll_until(*context, std::chrono::seconds(30), [&] { return results[0] && results[1]; });
  ASSERT_TRUE(results[0] && results[1]);
  EXPECT_EQ(*results[0], (std::vector<float>{2.5, 4.5, 6.5, 8.5}));
  EXPECT_EQ(*results[1], (std::vector<float>{5, 7}));
}

// Every context shares the process's one WebGPU instance, whose event processing may find any
// device's finished work: a completion must still run only in its own context's poll, on the
// thread that polls it, or it races with the thread that owns the context.
TEST(GpuContext, AnotherContextsPollNeverRunsThisContextsCompletion) {
  auto owner = Context::create();
  auto other = Context::create();
  Buffer a = upload_floats(*owner, {3, 4});
  std::optional<std::vector<float>> result;
  owner->readback_async(
      a, 0, 8, [&](Result<std::vector<std::byte>> bytes) { result = to_floats(bytes.value()); });
  // Long enough for the copy to finish: polling `other` meanwhile is what used to run it.
  poll_until(*other, std::chrono::milliseconds(500), [] { return false; });
  EXPECT_FALSE(result.has_value());
  poll_until(*owner, std::chrono::seconds(30), [&] { return result.has_value(); });
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(*result, (std::vector<float>{3, 4}));
}

TEST(GpuContext, DestroyingAContextWithAReadbackInFlightDropsItsCompletion) {
  auto context = Context::create();
  Buffer a = upload_floats(*context, {5, 6});
  bool ran = false;
  context->readback_async(a, 0, 8, [&ran](Result<std::vector<std::byte>>) { ran = true; });
  a = {};
  context.reset();
  EXPECT_FALSE(ran);
  Context::create()->poll();  // nothing of the destroyed context's is left to run
  EXPECT_FALSE(ran);
}

TEST(GpuContext, AsyncCreationDeliversAContext) {
  std::optional<Result<std::shared_ptr<Context>>> outcome;
  Context::create_async({}, [&](Result<std::shared_ptr<Context>> r) { outcome = std::move(r); });
  ASSERT_TRUE(outcome.has_value());  // native: complete when create_async returns
  ASSERT_TRUE(outcome->ok()) << outcome->error().what();
  EXPECT_FALSE(outcome->value()->adapter_info().backend.empty());
}

TEST(GpuContext, StorageBuffersAndUniformsAreReused) {
  auto context = test::gpu_context();
  Buffer in = upload_floats(*context, {1, 2, 3, 4, 5});
  { Buffer warm = context->create_storage(20); }
  twice_plus(*context, in, context->create_storage(20), 5, 3.0f);
  const Stats before = context->stats();
  for (int i = 0; i < 3; ++i) {
    Buffer out = context->create_storage(20);  // from the pool
    twice_plus(*context, in, out, 5, 3.0f);    // the same uniform block
  }
  EXPECT_EQ(context->stats().buffers_created, before.buffers_created);
}

TEST(GpuContext, RecycledBufferIsFullyOverwritten) {
  auto context = test::gpu_context();
  {
    Buffer dirty = upload_floats(*context, std::vector<float>(64, 12345.0f));
  }  // its buffer joins the pool with its contents
  Buffer in = upload_floats(*context, std::vector<float>(64, 1.0f));
  Buffer out = context->create_storage(64 * 4);
  twice_plus(*context, in, out, 64, 0.0f);
  EXPECT_EQ(to_floats(context->readback(out, 0, 256)), std::vector<float>(64, 2.0f));
}

TEST(GpuContext, UnknownKernelIsAClearError) {
  auto context = test::gpu_context();
  Buffer a = context->create_storage(16);
  try {
    context->dispatch("no_such_kernel", {}, {a}, {1});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown kernel 'no_such_kernel'"), std::string::npos)
        << error.what();
  }
}

TEST(GpuContext, OutOfRangeBufferRangeIsAClearError) {
  auto context = test::gpu_context();
  Buffer a = context->create_storage(16);
  Buffer b = context->create_storage(16);
  const uint32_t params[] = {4, 0};
  try {
    context->dispatch("self_test", params, {BufferRange(a, 0, 32), b}, {1});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("self_test"), std::string::npos) << message;
    EXPECT_NE(message.find("outside the buffer"), std::string::npos) << message;
  }
  EXPECT_THROW(context->readback(a, 8, 16), Error);
  // The context stays usable.
  Buffer in = upload_floats(*context, {1, 1, 1, 1});
  twice_plus(*context, in, b, 4, 0.0f);
  EXPECT_EQ(to_floats(context->readback(b, 0, 16)), std::vector<float>(4, 2.0f));
}

TEST(GpuContext, WrongNumberOfBuffersIsAClearError) {
  auto context = test::gpu_context();
  Buffer a = context->create_storage(16);
  const uint32_t params[] = {4, 0};
  EXPECT_THROW(context->dispatch("self_test", params, {a}, {1}), Error);
  EXPECT_THROW(context->dispatch("self_test", {}, {a, a}, {1}), Error);
}

TEST(GpuContext, WgslCompileErrorNamesTheKernelAndTheProblem) {
  auto context = test::gpu_context();
  context->add_kernel("broken_kernel",
                      "@group(0) @binding(1) var<storage, read_write> out: array<f32>;\n"
                      "@compute @workgroup_size(1) fn main() {\n"
                      "  out[0] = undefined_name;\n"
                      "}\n");
  Buffer a = context->create_storage(16);
  try {
    context->dispatch("broken_kernel", {}, {a}, {1});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("broken_kernel"), std::string::npos) << message;
    EXPECT_NE(message.find("undefined_name"), std::string::npos) << message;
  }
  EXPECT_THROW(context->add_kernel("self_test", "x"), Error) << "names are unique";
}

// A kernel replaced before its first use runs its new source in that context only; once
// compiled it cannot be replaced.
TEST(GpuContext, AReplacedKernelRunsItsNewSourceInItsContext) {
  auto context = Context::create();
  std::string source(
      std::find_if(embedded_kernels().begin(), embedded_kernels().end(), [](const KernelSource& k) {
        return k.name == "self_test";
      })->wgsl);
  const std::string twice = "input[id.x] * 2.0";
  ASSERT_NE(source.find(twice), std::string::npos);
  source.replace(source.find(twice), twice.size(), "input[id.x] * 3.0");
  context->replace_kernel("self_test", source);
  Buffer in = upload_floats(*context, {1, 2, 3, 4});
  Buffer out = context->create_storage(16);
  twice_plus(*context, in, out, 4, 0.5f);
  EXPECT_EQ(to_floats(context->readback(out, 0, 16)),
            (std::vector<float>{3.5f, 6.5f, 9.5f, 12.5f}));
  EXPECT_THROW(context->replace_kernel("self_test", source), Error) << "compiled already";
  // Another context keeps the embedded source.
  auto other = test::gpu_context();
  Buffer in2 = upload_floats(*other, {1, 2, 3, 4});
  Buffer out2 = other->create_storage(16);
  twice_plus(*other, in2, out2, 4, 0.5f);
  EXPECT_EQ(to_floats(other->readback(out2, 0, 16)), (std::vector<float>{2.5f, 4.5f, 6.5f, 8.5f}));
}

// `wgpt info --dump-kernels` writes the build's kernels; a context whose kernel folder holds them
// runs the one edited there and the built-in source of the rest, and names only the edited one.
TEST(GpuContext, AKernelFolderReplacesTheKernelsEditedThere) {
  const test::ScratchDir folder;
  ASSERT_EQ(write_kernel_sources(folder.path()), embedded_kernels().size());
  const std::filesystem::path self_test = folder / "self_test.wgsl";
  std::ifstream original(self_test);
  std::string source((std::istreambuf_iterator<char>(original)), {});
  const std::string twice = "input[id.x] * 2.0";
  ASSERT_NE(source.find(twice), std::string::npos);
  source.replace(source.find(twice), twice.size(), "input[id.x] * 3.0");
  std::ofstream(self_test, std::ios::trunc) << source;

  auto context = Context::create({.kernel_directory = folder.path().string()});
  EXPECT_EQ(context->replaced_kernels(), std::vector<std::string>{"self_test"});
  Buffer in = upload_floats(*context, {1, 2, 3, 4});
  Buffer out = context->create_storage(16);
  twice_plus(*context, in, out, 4, 0.5f);
  EXPECT_EQ(to_floats(context->readback(out, 0, 16)),
            (std::vector<float>{3.5f, 6.5f, 9.5f, 12.5f}));
  EXPECT_TRUE(test::gpu_context()->replaced_kernels().empty());
}

// A file that names no kernel, or a folder that is not there, fails the context's creation with
// the name in the message, before a device is asked for.
TEST(GpuContext, AKernelFolderWithAnUnknownNameIsRefused) {
  const test::ScratchDir folder;
  std::ofstream(folder / "no_such_kernel.wgsl") << "// nothing\n";
  std::ofstream(folder / "notes.txt") << "not a kernel, left alone\n";
  try {
    Context::create({.kernel_directory = folder.path().string()});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no_such_kernel.wgsl"), std::string::npos)
        << error.what();
  }
  EXPECT_THROW(Context::create({.kernel_directory = (folder / "missing").string()}), Error);
}

TEST(GpuContext, EightThreadsCreateAndDestroyContextsConcurrently) {
  // A watchdog bounds the test: if creation wedges, the process fails instead of hanging.
  std::atomic<bool> finished = false;
  std::thread watchdog([&finished] {
    for (int tenth = 0; tenth < 1200 && !finished; ++tenth) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!finished) {
      std::fprintf(stderr, "FAILED: concurrent context creation hung for 120 s\n");
      std::_Exit(1);
    }
  });
  std::mutex guard;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&guard, &failures] {
      auto fail = [&](std::string what) {
        std::lock_guard lock(guard);
        failures.push_back(std::move(what));
      };
      try {
        for (int round = 0; round < 2; ++round) {
          auto context = Context::create();
          Buffer a = upload_floats(*context, {1, 2});
          if (to_floats(context->readback(a, 0, 8)) != std::vector<float>{1, 2}) {
            fail("a readback returned other values");
          }
        }
      } catch (const std::exception& error) {
        fail(error.what());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  finished = true;
  watchdog.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, the first: " << failures.front();
}

}  // namespace
}  // namespace wgpt::gpu
