#pragma once
// wgpt::Tensor — a contiguous row-major array of f32 or u32 — or of floats stored in 16 or 4 bits
// (f16, bf16, q4: weights) — on the CPU or the GPU.
//
// A Tensor is a handle: copies share storage, like a view. A view is an element offset into the
// storage plus a shape. GPU storage is a pooled gpu::Buffer of a gpu::Context; reading it back to
// the host is always explicit (to_cpu / to_cpu_async). Nothing here exposes a WebGPU type.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/error.h"
#include "wgpt/gpu.h"
#include "wgpt/io.h"

namespace wgpt {

// f32 and u32 take a 32-bit word per element. The packed float dtypes hold weights compactly and
// are widened to f32 wherever they are read (kernels and the CPU reference alike):
// - f16 (IEEE half) and bf16 (bfloat16): two per 32-bit word, element 2i in bits 0–15 of word i
//   and element 2i + 1 in bits 16–31; an odd count takes ceil(n / 2) words. Views start at even
//   elements. WGSL reads them with unpack2x16float (f16) or a shift and bitcast (bf16).
// - q4: blocks of kQ4Block elements (the .fzm format's groups), each ten words: eight of 4-bit
//   codes (element j of the block in bits 4·(j % 8) of word j / 8), then the block's scale and
//   minimum as f32 bits; element = code · scale + min. Views start at a block.
enum class DType { f32, u32, f16, bf16, q4 };
enum class Device { cpu, gpu };

// How a GPU matrix's elements are ordered in its storage. CPU tensors are always row-major.
// - rows: row-major, as described above.
// - column_strips: a [k, n] matrix (f32, f16, bf16 or q4; n a multiple of kStripColumns, of
//   kQ4Block for q4) cut into strips of kStripColumns columns, each strip's k rows one after
//   another: a strip's row is 8 elements, so the decode step's matrix-vector products, whose
//   neighbouring threads take neighbouring rows of the same columns (lib/decode_gemv.wgsl), read
//   consecutive bytes instead of one sector of a different row each. q4 keeps its blocks' codes in
//   that order (one word per strip row) and puts their (scale, minimum) pairs after all the codes,
//   ordered by block column and then row. A GPU model stores its matrices so unless it is loaded
//   for training (model::matrix_layout_from_environment); the GEMM kernels read either layout.
enum class Layout { rows, column_strips };
inline constexpr size_t kStripColumns = 8;

inline constexpr size_t kQ4Block = 64;
inline constexpr size_t kQ4BlockWords = 10;

using Shape = std::vector<size_t>;

// "[2, 3, 4]" — for error messages.
std::string to_string(const Shape& shape);
const char* to_string(DType dtype);
const char* to_string(Device device);
// Parses "f32", "f16", "bf16" or "q4" (the weight dtypes); throws naming the accepted ones.
DType parse_weight_dtype(std::string_view name);
// f16, bf16 and q4: floats stored in fewer than 32 bits.
bool is_packed(DType dtype);
// The bytes `count` elements of `dtype` occupy (whole words; q4 in whole blocks).
size_t storage_bytes(DType dtype, size_t count);
// `bytes` of `dtype` as the GPU kernels read them: q4 rounded up to a multiple of 16, because the
// decode products read q4's words four u32s at a time, past a matrix's end where its count of words
// is not a multiple of four (lib/decode_rows_q4.wgsl). A GPU tensor's buffer holds that many.
size_t gpu_read_bytes(DType dtype, size_t bytes);
// The product of the dimensions (1 for a scalar shape []).
size_t numel(const Shape& shape);
// Whether a tensor of `dtype` and `shape` can be stored in column strips: a matrix, not u32, whose
// columns are a multiple of kStripColumns (kQ4Block for q4).
bool fits_column_strips(DType dtype, const Shape& shape);

class Tensor {
 public:
  // An empty f32 CPU tensor of shape [0].
  Tensor();

  // CPU tensors from host data; throws when values.size() != numel(shape).
  static Tensor from_floats(std::vector<float> values, Shape shape);
  static Tensor from_u32(std::vector<uint32_t> values, Shape shape);
  // `values` stored as `dtype` (f32, f16, bf16 or q4): f16 and bf16 round to nearest even, q4
  // quantizes each block as the .fzm writer quantizes a group (values must then be finite).
  static Tensor from_floats(std::vector<float> values, Shape shape, DType dtype);
  // A packed tensor (f16, bf16 or q4) from its storage words, laid out as described above.
  static Tensor from_words(std::vector<uint32_t> words, Shape shape, DType dtype);
  // Elements [first, first + numel(shape)) of a tensor already quantized in q4 groups of kQ4Block
  // elements (an .fzm tensor's), its blocks kept as they are; `first` starts a group.
  static Tensor from_q4(const io::Q4Data& q4, size_t first, Shape shape);
  // A CPU tensor of zeros.
  static Tensor zeros(Shape shape, DType dtype = DType::f32);
  // A GPU tensor from the context's pool. Its contents are undefined until a kernel writes them.
  static Tensor empty_gpu(std::shared_ptr<gpu::Context> context, Shape shape,
                          DType dtype = DType::f32);

  const Shape& shape() const { return shape_; }
  size_t rank() const { return shape_.size(); }
  // Dimension i; negative i counts from the end (-1 is the last dimension).
  size_t dim(int i) const;
  size_t numel() const { return wgpt::numel(shape_); }
  DType dtype() const { return dtype_; }
  Layout layout() const { return layout_; }
  Device device() const { return context_ ? Device::gpu : Device::cpu; }
  bool is_gpu() const { return device() == Device::gpu; }
  // "f32[2, 3] on gpu" — for error messages.
  std::string describe() const;

  // A tensor sharing this one's storage: `shape` starting `element_offset` elements after this
  // tensor's first element; it must lie inside this tensor. view, rows and reshape need the rows
  // layout (a matrix in column strips is used whole).
  Tensor view(size_t element_offset, Shape shape) const;
  // Rows [start, start + count) of the first dimension.
  Tensor rows(size_t start, size_t count) const;
  // The same elements under another shape with the same numel.
  Tensor reshape(Shape shape) const;

  // Uploads a copy to the GPU (a fresh, unpooled buffer) in `layout`. A GPU tensor of the same
  // context and layout is returned as it is.
  Tensor to_gpu(const std::shared_ptr<gpu::Context>& context, Layout layout = Layout::rows) const;
  // Reads a GPU tensor back into a new CPU tensor, row-major whatever its GPU layout (waits for the
  // GPU; native only). A CPU tensor is returned as it is.
  Tensor to_cpu() const;
  void to_cpu_async(std::function<void(Result<Tensor>)> done) const;

  // Host copies of the elements (a GPU tensor is read back first; packed dtypes are widened).
  std::vector<float> to_floats() const;
  std::vector<uint32_t> to_u32() const;

  // The elements of a CPU tensor, in place. Writes are seen by every tensor sharing the storage.
  std::span<float> floats() const;
  std::span<uint32_t> u32s() const;
  // The storage words of a packed CPU tensor, from the word holding its first element.
  std::span<const uint32_t> words() const;

  // GPU storage, for ops: the buffer, this tensor's first element in it, and its context.
  const gpu::Buffer& buffer() const;
  size_t offset() const { return offset_; }
  // Where this tensor's elements lie in its storage, in bytes, and the bytes they take.
  size_t byte_offset() const;
  size_t byte_size() const { return storage_bytes(dtype_, numel()); }
  // The GPU storage range of this tensor's elements, as a kernel binds it.
  gpu::BufferRange range() const;
  const std::shared_ptr<gpu::Context>& context() const { return context_; }

 private:
  Shape shape_;
  DType dtype_ = DType::f32;
  Layout layout_ = Layout::rows;
  size_t offset_ = 0;  // elements
  // CPU storage: exactly one of these is set for a CPU tensor, by dtype (u32 and packed: words).
  std::shared_ptr<std::vector<float>> host_f32_;
  std::shared_ptr<std::vector<uint32_t>> host_u32_;
  // GPU storage.
  gpu::Buffer buffer_;
  std::shared_ptr<gpu::Context> context_;
};

// Host copies of several f32 tensors' elements, read back together: GPU tensors (of one context)
// in one submit and one fence wait however many there are; CPU tensors are copied. In the order
// given. The sync form is native only; the async one holds the tensors until they are read and
// calls `done` from gpu::Context::poll() or the browser's event loop (on the CPU before returning).
std::vector<std::vector<float>> read_floats(const std::vector<Tensor>& tensors);
void read_floats_async(std::vector<Tensor> tensors,
                       std::function<void(Result<std::vector<std::vector<float>>>)> done);
// One step of work and its results without blocking: `record` records the work (inside one
// recording scope when `context` is set, so the work and the readback copies are one submit) and
// returns the tensors to read; their values, or the error `record` or the readback threw, go to
// `done` once the scope is closed.
void record_and_read_async(const std::shared_ptr<gpu::Context>& context,
                           const std::function<std::vector<Tensor>()>& record,
                           std::function<void(Result<std::vector<std::vector<float>>>)> done);

}  // namespace wgpt
