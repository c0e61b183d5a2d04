#pragma once
// wgpt::gpu::Context — the WebGPU device and everything wgpt does with it: buffers, uploads,
// readbacks, compute dispatches, recording scopes and counters. Nothing outside src/gpu/ sees a
// WebGPU type; this header exposes opaque handles only.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/error.h"

namespace wgpt::gpu {

// Which WebGPU backend to ask Dawn for. `automatic` takes a real GPU when there is one and falls
// back to OpenGL ES (llvmpipe on a CPU-only Linux machine). Dawn's Null adapter is never accepted.
enum class Backend { automatic, vulkan, metal, d3d12, gl };

// Parses "auto|vulkan|metal|d3d12|gl"; throws wgpt::Error naming the accepted values otherwise.
Backend parse_backend(std::string_view name);
// The backend named by $WGPT_BACKEND, or `automatic` when it is unset or empty.
Backend backend_from_environment();

// Whether $WGPT_KERNEL_CHECKS keeps WebGPU's checks inside kernels: "0", "off" or "false" drop
// them; "1", "on", "true" or unset keep them; any other value throws wgpt::Error.
bool kernel_checks_from_environment();

// The folder named by $WGPT_KERNEL_DIR, or empty when it is unset.
std::string kernel_directory_from_environment();

// Which kernel computes a prompt's attention (ops::causal_attention, packed_causal_attention).
// `automatic` takes the pairs form where the adapter's subgroups are 32 consecutive lanes
// (Context::subgroups_consecutive) and the plain one elsewhere; the others name a form, to measure
// them against each other on an adapter (pairs and quarters need those subgroups). The kernels'
// headers (src/kernels/flash_attention*.wgsl) say how they differ.
enum class PromptAttention { automatic, plain, pairs, quarters };

// Parses "auto|plain|pairs|quarters"; throws wgpt::Error naming the accepted values otherwise.
PromptAttention parse_prompt_attention(std::string_view name);
std::string_view to_string(PromptAttention form);
// The form named by $WGPT_PROMPT_ATTENTION, or `automatic` when it is unset or empty.
PromptAttention prompt_attention_from_environment();

struct ContextOptions {
  Backend backend = backend_from_environment();
  // WebGPU's safety code inside every kernel: each storage access clamped to its buffer, and
  // workgroup memory zeroed before each workgroup starts. wgpt's kernels bound their own accesses
  // and write workgroup memory before they read it (a test compares their results with and
  // without the checks), so a native device may run them without (false): on an H200 that decoded
  // GPT-2 124M 1.7% faster, and gpt2-large 9.6% slower, so the checks stay by default. A browser
  // always keeps them.
  bool kernel_checks = kernel_checks_from_environment();
  // A folder whose NAME.wgsl files replace this build's kernels of those names in the context
  // where they differ (Context::replaced_kernels lists those): a kernel edited and measured
  // without a rebuild, on a machine with a GPU and no compiler. Its files are as
  // write_kernel_sources writes them: one per variant (matmul_wide_vec4.f16.wgsl), includes
  // expanded. Empty: the build's kernels. A file that names no kernel of the build fails the
  // context's creation.
  std::string kernel_directory = kernel_directory_from_environment();
  // The prompt's attention kernel (PromptAttention); a subgroup form on an adapter without the
  // subgroups it needs fails the first prompt that runs it.
  PromptAttention prompt_attention = prompt_attention_from_environment();
};

// Writes every kernel of this build to `directory` (created if missing) as NAME.wgsl, includes
// expanded: the files ContextOptions::kernel_directory takes. Returns how many it wrote.
size_t write_kernel_sources(const std::filesystem::path& directory);

struct AdapterInfo {
  std::string vendor;
  std::string architecture;
  std::string device;
  std::string description;
  std::string backend;  // "Vulkan", "OpenGLES", ...
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  bool is_cpu = false;  // a software rasteriser (llvmpipe, SwiftShader, lavapipe)
};

// Tensor cores through Dawn's experimental subgroup matrices (WGSL `enable
// chromium_experimental_subgroup_matrix;`): a subgroup multiplies an m×k by a k×n tile of f16
// values into an m×n tile of f32 sums. wgpt asks for them where the adapter offers an f16 × f16 →
// f32 configuration its kernels can tile (Dawn's Vulkan, Metal and D3D12 backends on recent GPUs);
// never on llvmpipe, SwiftShader or in the browser today, which take the f32 kernels.
struct SubgroupMatrix {
  uint32_t m = 0, n = 0, k = 0;
  uint32_t subgroup_size = 0;  // the adapter's largest subgroup: the kernels' workgroup width
  bool available() const { return m != 0; }
};

// The device limits that matter to wgpt; the device is created with the adapter's full limits.
struct Limits {
  uint64_t max_storage_buffer_binding_size = 0;
  uint64_t max_buffer_size = 0;
  uint32_t max_storage_buffers_per_stage = 0;
  uint32_t max_workgroup_storage_bytes = 0;
  uint32_t max_invocations_per_workgroup = 0;
  uint32_t max_workgroup_size_x = 0;
  uint32_t max_workgroups_per_dimension = 0;
  uint32_t min_storage_buffer_offset_alignment = 0;
  bool shader_f16 = false;
  bool timestamp_query = false;
  SubgroupMatrix f16_matrix;
  // WGSL subgroup operations (`enable subgroups;`), with the adapter's subgroup sizes in lanes.
  bool subgroups = false;
  uint32_t subgroup_min_size = 0;
  uint32_t subgroup_max_size = 0;
  // Whether the kernels run with WebGPU's checks (ContextOptions::kernel_checks; always in a
  // browser).
  bool kernel_checks = true;
};

// Always-on counters: any run can show what it cost.
struct Stats {
  uint64_t dispatches = 0;
  uint64_t submits = 0;
  uint64_t fence_waits = 0;      // host waits on GPU work (readbacks)
  uint64_t buffers_created = 0;  // storage, uniform and staging buffers created on the device
  uint64_t bytes_allocated = 0;  // bytes of those buffers
  uint64_t pipelines_compiled = 0;
  // Dispatches bind their buffers through bind groups, cached by what they bind: a pass that runs
  // again over the same buffers (a prefill of the same length) creates none.
  uint64_t bind_groups_created = 0;
  // Host time from opening an outermost Scope to its submit's return: recording the commands and
  // handing them to the queue. Beside a step's wall time, it tells a host-bound loop from a
  // GPU-bound one.
  uint64_t recording_nanoseconds = 0;
};

// GPU time by kernel while kernel timing is on (Context::time_kernels).
struct KernelTiming {
  std::string kernel;
  uint64_t dispatches = 0;
  // Where the adapter has timestamp queries, the GPU time between the start and the end of its
  // dispatches; otherwise the wall time of each dispatch submitted and waited for alone.
  double microseconds = 0;
};

class Context;
struct BufferSlot;
struct PreparedState;

// A storage buffer on the device. Copies share the buffer; when the last copy goes, the buffer
// returns to its context's pool (pooled buffers are not zeroed: every kernel writes its whole
// output).
class Buffer {
 public:
  Buffer() = default;
  size_t size() const;
  bool valid() const { return slot_ != nullptr; }
  // Identity of the underlying device buffer, for diagnostics and caches.
  const void* id() const;

 private:
  friend class Context;
  explicit Buffer(std::shared_ptr<BufferSlot> slot) : slot_(std::move(slot)) {}
  std::shared_ptr<BufferSlot> slot_;
};

// A byte range of a buffer, as bound to a kernel or read back. size 0 means "to the end".
struct BufferRange {
  const Buffer* buffer = nullptr;
  size_t offset = 0;
  size_t size = 0;
  BufferRange(const Buffer& b, size_t off = 0, size_t n = 0) : buffer(&b), offset(off), size(n) {}
};

struct Workgroups {
  uint32_t x = 1, y = 1, z = 1;
};

// A dispatch whose bind group is built once and then replayed: for loops that run the same
// kernels on the same buffers every step (decoding). It holds its buffers, so they stay out of the
// pool while it lives; values that change per step belong in a buffer the caller rewrites.
class PreparedDispatch {
 public:
  PreparedDispatch() = default;
  bool valid() const { return state_ != nullptr; }

 private:
  friend class Context;
  std::shared_ptr<const PreparedState> state_;
};

// How a scope's recording reaches the GPU.
enum class Submits {
  // One submit when the outermost scope closes: a decode step, short, with the next steps already
  // queued behind it, where each extra submit is time added to every token.
  once,
  // In parts of Context::dispatches_per_submit() dispatches: a long pass (a prompt's, a training
  // step), where the GPU would otherwise wait for the host to record all of it.
  in_parts,
};

// RAII recording scope: every dispatch while a scope lives goes into one command encoder and one
// compute pass, submitted as the outermost scope asked: once when it closes, or in parts. Scopes
// nest; an inner scope's Submits is not heeded (a prompt's pass inside a probed step's scope is
// part of that one submit). A synchronous readback inside a scope submits what was recorded
// before it (so it sees those writes) and recording goes on; an asynchronous one records its copy
// in order (it sees the writes before it, not those after) and is mapped after the submit that
// holds it, so that several decode steps, each with its readback, can be one submit.
class Scope {
 public:
  explicit Scope(Context& context, Submits submits = Submits::once);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Context& context_;
};

class Context {
 public:
  // Asynchronous creation: the primary form, and the only one in the browser. The callback runs
  // from a later poll() (native) or the browser's event loop.
  static void create_async(ContextOptions options,
                           std::function<void(Result<std::shared_ptr<Context>>)> done);
  // Synchronous facade over create_async (native only). Throws wgpt::Error when no usable adapter.
  static std::shared_ptr<Context> create(ContextOptions options = {});

  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const AdapterInfo& adapter_info() const;
  const Limits& limits() const;
  Stats stats() const;
  // Whether the device has subgroups of 32 lanes laid out as the subgroup reductions assume
  // (src/gpu/subgroup_layout.h): found by a probe (one submit, one wait) the first time it is
  // asked, then remembered. A browser's device has no subgroups: false there, without a probe.
  bool subgroups_consecutive();
  // ContextOptions::prompt_attention, as the context was created with it.
  PromptAttention prompt_attention() const;

  // A storage buffer of exactly `bytes` (rounded up to 4), from the pool when one is free.
  Buffer create_storage(size_t bytes);
  // A new storage buffer holding `bytes`, at least `min_size` bytes long (zeros past `bytes`).
  // Uploads are never pooled: the write lands before every command of the next submit.
  Buffer upload(std::span<const std::byte> bytes, size_t min_size = 0);
  // Overwrites part of a buffer (queue write: ordered before the next submit's commands).
  void write(const Buffer& buffer, size_t offset, std::span<const std::byte> bytes);

  // Reads `size` bytes at `offset` back to the host. Sync forms are native only.
  std::vector<std::byte> readback(const Buffer& buffer, size_t offset, size_t size);
  void readback_async(const Buffer& buffer, size_t offset, size_t size,
                      std::function<void(Result<std::vector<std::byte>>)> done);
  // Several regions in one submit and one fence wait, returned in the order given.
  std::vector<std::vector<std::byte>> readback_many(const std::vector<BufferRange>& regions);
  void readback_many_async(const std::vector<BufferRange>& regions,
                           std::function<void(Result<std::vector<std::vector<std::byte>>>)> done);

  // Copies `from` (size 0: to the end of its buffer) into `to` at its offset, in order with the
  // recorded dispatches; offsets and size must be multiples of 4. Outside a scope it is submitted
  // at once.
  void copy(const BufferRange& from, const BufferRange& to);

  // Records kernel `name` (an embedded src/kernels/NAME.wgsl, or one added with add_kernel):
  // binding 0 = a uniform block holding `params` (raw 32-bit words; omitted when empty),
  // bindings 1.. = the storage ranges in order. Outside a scope it is submitted at once.
  void dispatch(std::string_view name, std::span<const uint32_t> params,
                std::initializer_list<BufferRange> buffers, Workgroups workgroups);
  void dispatch(std::string_view name, std::span<const uint32_t> params,
                const std::vector<BufferRange>& buffers, Workgroups workgroups);

  // Validates and binds a dispatch once (as dispatch() would), for replay with dispatch(prepared).
  PreparedDispatch prepare(std::string_view name, std::span<const uint32_t> params,
                           const std::vector<BufferRange>& buffers, Workgroups workgroups);
  void dispatch(const PreparedDispatch& prepared);

  // Runs `record` with every dispatch it makes prepared (as prepare() would) into the returned
  // list instead of recorded: nothing reaches the GPU, and dispatching the list in order later
  // runs the same pass over the same buffers without validating or binding anything again (a
  // pass of general ops whose shapes repeat: the batched decode step). Queue writes, copies,
  // readbacks and nested captures inside `record` throw: they would not be replayed.
  std::vector<PreparedDispatch> capture(const std::function<void()>& record);

  // Registers a kernel from WGSL source under `name` (replacing none: names are unique).
  void add_kernel(std::string_view name, std::string source);
  // Gives kernel `name` other source in this context, before its first use: for tests that run a
  // variant on an adapter without a feature it needs, the feature emulated.
  void replace_kernel(std::string_view name, std::string source);
  // The kernels that ContextOptions::kernel_directory replaced (its files that differ from the
  // build's), by name, in order.
  const std::vector<std::string>& replaced_kernels() const;

  // Submits everything recorded and waits for the GPU to finish it.
  void finish();

  // How a long pass reaches the GPU: in a Submits::in_parts scope, what has been recorded is
  // submitted after every n dispatches instead of only when the outermost scope closes, so that
  // the GPU starts on the first part of the pass while the host records the rest. 0 keeps one
  // submit per scope. Results are the same either way. The default, 16, was the fastest of 0, 16,
  // 32 and 64 for GPT-2's prompts on an H100 (docs/benchmarks.md, 2026-12-06): 4-9% less time
  // than one submit, which leaves the GPU idle while the host records the pass.
  static constexpr size_t kDefaultDispatchesPerSubmit = 16;
  void set_dispatches_per_submit(size_t n);
  size_t dispatches_per_submit() const;

  // Kernel timing, to find where a pass's GPU time goes (`wgpt bench --profile`). Where the
  // adapter has timestamp queries (Limits::timestamp_query), every dispatch while timing is on
  // gets a compute pass of its own whose start and end the GPU stamps; scopes and submits go on
  // as usual, so the rows are exact GPU times of the real work. Elsewhere every dispatch is
  // submitted and waited for on its own and its wall time counted, which adds a submit and a wait
  // (tens of µs) to each: then the shares, not the totals, are the finding. Native only.
  void time_kernels(bool on);
  // The rows since timing was last turned on, the most time first (waits for the GPU).
  std::vector<KernelTiming> kernel_timings();
  // Whether the rows are timestamp GPU times (else host wall times).
  bool kernel_timings_exact() const;
  // Drives pending asynchronous work on native builds: the callbacks of this context's *_async
  // calls run here, on the thread that polls, and nowhere else (another context's poll never runs
  // them). A context destroyed with a readback in flight drops its callback unrun.
  void poll();

  struct Impl;

 private:
  friend class Scope;
  friend std::shared_ptr<Context> create_validation_context(const SubgroupMatrix& f16_matrix);
  explicit Context(std::unique_ptr<Impl> impl);
  void begin_scope(Submits submits);
  void end_scope();
  std::unique_ptr<Impl> impl_;
};

}  // namespace wgpt::gpu
