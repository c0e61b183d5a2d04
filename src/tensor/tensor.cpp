#include "wgpt/tensor.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "tensor/packing.h"

namespace wgpt {
namespace {

constexpr size_t kElementBytes = 4;  // f32 and u32 alike; packed dtypes: storage_bytes

// Throws "Tensor: " + message() unless `condition`. The message is built only for the throw: these
// checks sit on the path of every dispatch (buffer(), dim()), which must not format text.
template <class Message>
void require(bool condition, const Message& message) {
  if (!condition) throw Error("Tensor: " + std::string(message()));
}

// A GPU tensor's buffer: as many bytes as the kernels read of it.
size_t gpu_storage_bytes(DType dtype, size_t count) {
  return gpu_read_bytes(dtype, storage_bytes(dtype, count));
}

}  // namespace

Tensor::Tensor() : shape_{0}, host_f32_(std::make_shared<std::vector<float>>()) {}

Tensor Tensor::from_floats(std::vector<float> values, Shape shape) {
  require(values.size() == wgpt::numel(shape), [&] {
    return std::to_string(values.size()) + " floats do not fill shape " + to_string(shape);
  });
  Tensor t;
  t.shape_ = std::move(shape);
  t.host_f32_ = std::make_shared<std::vector<float>>(std::move(values));
  return t;
}

Tensor Tensor::from_u32(std::vector<uint32_t> values, Shape shape) {
  require(values.size() == wgpt::numel(shape), [&] {
    return std::to_string(values.size()) + " u32s do not fill shape " + to_string(shape);
  });
  Tensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = DType::u32;
  t.host_f32_.reset();
  t.host_u32_ = std::make_shared<std::vector<uint32_t>>(std::move(values));
  return t;
}

Tensor Tensor::from_floats(std::vector<float> values, Shape shape, DType dtype) {
  if (dtype == DType::f32) return from_floats(std::move(values), std::move(shape));
  require(is_packed(dtype),
          [&] { return std::string("floats cannot be stored as ") + to_string(dtype); });
  require(values.size() == wgpt::numel(shape), [&] {
    return std::to_string(values.size()) + " floats do not fill shape " + to_string(shape);
  });
  return from_words(packing::pack(values, dtype), std::move(shape), dtype);
}

Tensor Tensor::from_words(std::vector<uint32_t> words, Shape shape, DType dtype) {
  require(is_packed(dtype),
          [&] { return std::string("from_words needs a packed dtype, not ") + to_string(dtype); });
  require(words.size() * 4 == storage_bytes(dtype, wgpt::numel(shape)), [&] {
    return std::to_string(words.size()) + " words do not hold " + to_string(dtype) +
           to_string(shape);
  });
  Tensor t;
  t.shape_ = std::move(shape);
  t.dtype_ = dtype;
  t.host_f32_.reset();
  t.host_u32_ = std::make_shared<std::vector<uint32_t>>(std::move(words));
  return t;
}

Tensor Tensor::from_q4(const io::Q4Data& q4, size_t first, Shape shape) {
  std::vector<uint32_t> words = packing::pack_q4(q4, first, wgpt::numel(shape));
  return from_words(std::move(words), std::move(shape), DType::q4);
}

Tensor Tensor::zeros(Shape shape, DType dtype) {
  size_t n = wgpt::numel(shape);
  if (dtype == DType::u32) return from_u32(std::vector<uint32_t>(n, 0), std::move(shape));
  return from_floats(std::vector<float>(n, 0.0f), std::move(shape));
}

Tensor Tensor::empty_gpu(std::shared_ptr<gpu::Context> context, Shape shape, DType dtype) {
  require(context != nullptr, [&] { return "empty_gpu needs a GPU context"; });
  Tensor t;
  t.host_f32_.reset();
  t.dtype_ = dtype;
  // A zero-element tensor still gets a (minimal) buffer, so every GPU tensor has storage.
  t.buffer_ =
      context->create_storage(std::max<size_t>(4, gpu_storage_bytes(dtype, wgpt::numel(shape))));
  t.shape_ = std::move(shape);
  t.context_ = std::move(context);
  return t;
}

size_t Tensor::dim(int i) const {
  int rank_i = static_cast<int>(shape_.size());
  int index = i < 0 ? rank_i + i : i;
  require(index >= 0 && index < rank_i, [&] {
    return "dimension " + std::to_string(i) + " out of range for shape " + to_string(shape_);
  });
  return shape_[static_cast<size_t>(index)];
}

std::string Tensor::describe() const {
  return std::string(to_string(dtype_)) + to_string(shape_) +
         (layout_ == Layout::column_strips ? " in column strips" : "") + " on " +
         to_string(device());
}

Tensor Tensor::view(size_t element_offset, Shape shape) const {
  require(layout_ == Layout::rows,
          [&] { return "a matrix in column strips is used whole: no view of " + describe(); });
  require(element_offset + wgpt::numel(shape) <= numel(), [&] {
    return "view of " + to_string(shape) + " at element " + std::to_string(element_offset) +
           " does not fit in " + describe();
  });
  const size_t granule = dtype_ == DType::q4 ? kQ4Block : is_packed(dtype_) ? 2 : 1;
  require((offset_ + element_offset) % granule == 0, [&] {
    return std::string("a view of ") + to_string(dtype_) + " must start at a multiple of " +
           std::to_string(granule) + " elements, not " + std::to_string(offset_ + element_offset);
  });
  Tensor t = *this;
  t.offset_ = offset_ + element_offset;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::rows(size_t start, size_t count) const {
  require(rank() >= 1 && start + count <= shape_[0], [&] {
    return "rows [" + std::to_string(start) + ", " + std::to_string(start + count) +
           ") out of range for " + describe();
  });
  Shape shape = shape_;
  shape[0] = count;
  size_t row_elements = wgpt::numel(Shape(shape_.begin() + 1, shape_.end()));
  return view(start * row_elements, std::move(shape));
}

Tensor Tensor::reshape(Shape shape) const {
  require(layout_ == Layout::rows, [&] {
    return "a matrix in column strips keeps its shape: cannot reshape " + describe();
  });
  require(wgpt::numel(shape) == numel(),
          [&] { return "cannot reshape " + describe() + " to " + to_string(shape); });
  Tensor t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Tensor Tensor::to_gpu(const std::shared_ptr<gpu::Context>& context, Layout layout) const {
  require(context != nullptr, [&] { return "to_gpu needs a GPU context"; });
  if (is_gpu()) {
    require(context_ == context,
            [&] { return "to_gpu: tensor already lives on another GPU context"; });
    require(layout_ == layout,
            [&] { return "to_gpu: " + describe() + " is already on the GPU in another layout"; });
    return *this;
  }
  Tensor t;
  t.host_f32_.reset();
  t.dtype_ = dtype_;
  t.layout_ = layout;
  t.shape_ = shape_;
  t.context_ = context;
  const void* first = dtype_ == DType::f32 ? static_cast<const void*>(floats().data())
                      : is_packed(dtype_)  ? static_cast<const void*>(words().data())
                                           : static_cast<const void*>(u32s().data());
  size_t bytes = byte_size();
  std::vector<uint32_t> strips;
  if (layout == Layout::column_strips) {
    require(fits_column_strips(dtype_, shape_), [&] {
      return "column strips need a matrix of f32, f16, bf16 or q4 whose columns are a multiple of "
             "8 "
             "(q4: 64), not " +
             describe();
    });
    strips = packing::to_column_strips(
        std::span(static_cast<const uint32_t*>(first), bytes / kElementBytes), dtype_, shape_[0],
        shape_[1]);
    first = strips.data();
  }
  if (bytes == 0) {
    t.buffer_ = context->create_storage(kElementBytes);
  } else {
    t.buffer_ = context->upload(std::span(static_cast<const std::byte*>(first), bytes),
                                gpu_storage_bytes(dtype_, numel()));
  }
  return t;
}

namespace {

// The storage bytes of a [k, n] matrix in column strips, row-major.
std::vector<std::byte> row_major(const std::vector<std::byte>& strips, DType dtype,
                                 const Shape& shape) {
  std::vector<uint32_t> words(strips.size() / kElementBytes);
  std::memcpy(words.data(), strips.data(), words.size() * kElementBytes);
  words = packing::from_column_strips(words, dtype, shape[0], shape[1]);
  std::vector<std::byte> rows(strips.size());
  std::memcpy(rows.data(), words.data(), words.size() * kElementBytes);
  return rows;
}

Tensor tensor_from_bytes(const std::vector<std::byte>& bytes, DType dtype, Layout layout,
                         const Shape& shape) {
  if (layout == Layout::column_strips) {
    return tensor_from_bytes(row_major(bytes, dtype, shape), dtype, Layout::rows, shape);
  }
  size_t n = bytes.size() / kElementBytes;
  if (is_packed(dtype)) {
    std::vector<uint32_t> words(n);
    std::memcpy(words.data(), bytes.data(), n * kElementBytes);
    return Tensor::from_words(std::move(words), shape, dtype);
  }
  if (dtype == DType::u32) {
    std::vector<uint32_t> values(n);
    std::memcpy(values.data(), bytes.data(), n * kElementBytes);
    return Tensor::from_u32(std::move(values), shape);
  }
  std::vector<float> values(n);
  std::memcpy(values.data(), bytes.data(), n * kElementBytes);
  return Tensor::from_floats(std::move(values), shape);
}

}  // namespace

Tensor Tensor::to_cpu() const {
  if (!is_gpu()) return *this;
  if (numel() == 0) return zeros(shape_, dtype_);
  auto bytes = context_->readback(buffer_, byte_offset(), byte_size());
  return tensor_from_bytes(bytes, dtype_, layout_, shape_);
}

void Tensor::to_cpu_async(std::function<void(Result<Tensor>)> done) const {
  if (!is_gpu() || numel() == 0) {
    done(to_cpu());
    return;
  }
  context_->readback_async(buffer_, byte_offset(), byte_size(),
                           [dtype = dtype_, layout = layout_, shape = shape_,
                            done = std::move(done)](Result<std::vector<std::byte>> bytes) {
                             if (!bytes.ok()) {
                               done(bytes.error());
                               return;
                             }
                             done(tensor_from_bytes(bytes.value(), dtype, layout, shape));
                           });
}

std::vector<float> Tensor::to_floats() const {
  Tensor host = to_cpu();
  if (is_packed(dtype_)) {
    // Views start where a word (f16, bf16) or a block (q4) does: words() starts at element 0.
    return packing::unpack(host.words(), 0, numel(), dtype_);
  }
  auto values = host.floats();
  return {values.begin(), values.end()};
}

std::vector<uint32_t> Tensor::to_u32() const {
  Tensor host = to_cpu();
  auto values = host.u32s();
  return {values.begin(), values.end()};
}

std::span<float> Tensor::floats() const {
  require(!is_gpu() && dtype_ == DType::f32,
          [&] { return "floats() needs an f32 CPU tensor, not " + describe(); });
  return std::span(*host_f32_).subspan(offset_, numel());
}

std::span<uint32_t> Tensor::u32s() const {
  require(!is_gpu() && dtype_ == DType::u32,
          [&] { return "u32s() needs a u32 CPU tensor, not " + describe(); });
  return std::span(*host_u32_).subspan(offset_, numel());
}

std::span<const uint32_t> Tensor::words() const {
  require(!is_gpu() && is_packed(dtype_),
          [&] { return "words() needs a packed (f16, bf16, q4) CPU tensor, not " + describe(); });
  const size_t first = packing::word_of(dtype_, offset_);
  return std::span(*host_u32_).subspan(first, byte_size() / kElementBytes);
}

size_t Tensor::byte_offset() const { return storage_bytes(dtype_, offset_); }

gpu::BufferRange Tensor::range() const { return {buffer(), byte_offset(), byte_size()}; }

const gpu::Buffer& Tensor::buffer() const {
  require(is_gpu(), [&] { return "buffer() needs a GPU tensor, not " + describe(); });
  return buffer_;
}

namespace {

// The GPU context all `tensors` share, or nullptr when they are all host tensors.
std::shared_ptr<gpu::Context> shared_context(const std::vector<Tensor>& tensors) {
  std::shared_ptr<gpu::Context> context;
  for (const Tensor& tensor : tensors) {
    require(tensor.dtype() == DType::f32 && tensor.layout() == Layout::rows,
            [&] { return "read_floats needs row-major f32 tensors, not " + tensor.describe(); });
    if (tensor.is_gpu()) context = tensor.context();
  }
  for (const Tensor& tensor : tensors) {
    require(tensor.context() == context, [&] {
      return "read_floats needs tensors of one device, not " + tensor.describe() + " with others";
    });
  }
  return context;
}

std::vector<gpu::BufferRange> regions_of(const std::vector<Tensor>& tensors) {
  std::vector<gpu::BufferRange> regions;
  for (const Tensor& tensor : tensors) {
    regions.emplace_back(tensor.buffer(), tensor.offset() * kElementBytes,
                         tensor.numel() * kElementBytes);
  }
  return regions;
}

std::vector<std::vector<float>> floats_of(const std::vector<std::vector<std::byte>>& bytes) {
  std::vector<std::vector<float>> values;
  for (const std::vector<std::byte>& region : bytes) {
    std::vector<float> floats(region.size() / sizeof(float));
    std::memcpy(floats.data(), region.data(), floats.size() * sizeof(float));
    values.push_back(std::move(floats));
  }
  return values;
}

std::vector<std::vector<float>> host_floats(const std::vector<Tensor>& tensors) {
  std::vector<std::vector<float>> values;
  for (const Tensor& tensor : tensors) values.push_back(tensor.to_floats());
  return values;
}

}  // namespace

std::vector<std::vector<float>> read_floats(const std::vector<Tensor>& tensors) {
  const auto context = shared_context(tensors);
  if (!context) return host_floats(tensors);
  return floats_of(context->readback_many(regions_of(tensors)));
}

void read_floats_async(std::vector<Tensor> tensors,
                       std::function<void(Result<std::vector<std::vector<float>>>)> done) {
  std::shared_ptr<gpu::Context> context;
  try {
    context = shared_context(tensors);
    if (!context) return done(host_floats(tensors));
  } catch (const Error& error) {
    return done(error);
  }
  const std::vector<gpu::BufferRange> regions = regions_of(tensors);
  // The callback holds the tensors: their buffers stay out of the pool until they are read.
  context->readback_many_async(regions, [tensors = std::move(tensors), done = std::move(done)](
                                            Result<std::vector<std::vector<std::byte>>> bytes) {
    if (!bytes.ok()) return done(bytes.error());
    done(floats_of(bytes.value()));
  });
}

void record_and_read_async(const std::shared_ptr<gpu::Context>& context,
                           const std::function<std::vector<Tensor>()>& record,
                           std::function<void(Result<std::vector<std::vector<float>>>)> done) {
  std::optional<Result<std::vector<std::vector<float>>>> ready;  // delivered after the scope
  {
    std::optional<gpu::Scope> scope;
    if (context) scope.emplace(*context);
    try {
      std::vector<Tensor> tensors = record();
      if (context) {
        read_floats_async(std::move(tensors), std::move(done));
        return;
      }
      ready.emplace(read_floats(tensors));
    } catch (const Error& error) {
      ready.emplace(error);
    }
  }
  done(std::move(*ready));
}

}  // namespace wgpt
