// fzm writer: quantizes every tensor to 4-bit codes in groups of kFzmGroupSize elements.

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <set>

#include "io/byte_sink.h"
#include "io/formats.h"
#include "io/fzm_layout.h"

namespace wgpt::io {
namespace {

class Record {
 public:
  template <class T>
  void put(T value) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
    bytes_.insert(bytes_.end(), bytes, bytes + sizeof value);
  }
  template <class Range>
  void append(const Range& bytes) {
    bytes_.insert(bytes_.end(), std::begin(bytes), std::end(bytes));
  }
  std::span<const uint8_t> bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

void check_writable(const TensorData& tensor, std::set<std::string_view>& names) {
  const std::string& name = tensor.name();
  if (tensor.is_integer()) {
    throw Error("tensor '" + name + "' holds integers; fzm stores float tensors only");
  }
  if (name.empty() || name.size() > std::numeric_limits<uint16_t>::max()) {
    throw Error("tensor name '" + name.substr(0, 64) + "' must have 1 to 65535 bytes in fzm");
  }
  if (!names.insert(name).second) throw Error("two tensors are named '" + name + "'");
  if (tensor.shape().size() > std::numeric_limits<uint8_t>::max()) {
    throw Error("tensor '" + name + "' has more than 255 dimensions, beyond fzm");
  }
  for (const int64_t d : tensor.shape()) {
    if (d > std::numeric_limits<uint32_t>::max()) {
      throw Error("tensor '" + name + "' has dimension " + std::to_string(d) + ", beyond fzm");
    }
  }
  const auto values = tensor.floats();
  const auto bad =
      std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
  if (bad != values.end()) {
    throw Error("tensor '" + name + "' holds a non-finite value at index " +
                std::to_string(bad - values.begin()) + "; q4 cannot store it");
  }
}

// One group: (scale, min) and its codes, nibble i of the tensor at codes[i / 2].
void quantize_group(const TensorData& tensor, std::span<const float> group, size_t first,
                    Record& record, std::vector<uint8_t>& codes) {
  std::vector<uint8_t> group_codes(group.size());
  Q4Group quantized;
  try {
    quantized = quantize_q4_group(group, group_codes);
  } catch (const Error& error) {
    throw Error("tensor '" + tensor.name() + "' near index " + std::to_string(first) + ": " +
                error.what());
  }
  record.put(quantized.scale);
  record.put(quantized.min);
  for (size_t j = 0; j < group.size(); ++j) {
    const size_t i = first + j;
    codes[i / 2] |= static_cast<uint8_t>(group_codes[j] << (i % 2 == 0 ? 0 : 4));
  }
}

Record encode(const TensorData& tensor) {
  Record record;
  record.put(static_cast<uint16_t>(tensor.name().size()));
  record.append(tensor.name());
  record.put(static_cast<uint8_t>(tensor.shape().size()));
  for (const int64_t d : tensor.shape()) record.put(static_cast<uint32_t>(d));
  const auto values = tensor.floats();
  record.put(kFzmGroupSize);
  record.put(static_cast<uint32_t>(fzm::group_count(values.size(), kFzmGroupSize)));
  if (values.empty()) {
    // The format still carries one group for an empty tensor: scale 1, min = the f32 maximum.
    record.put(1.0f);
    record.put(std::numeric_limits<float>::max());
    return record;
  }
  // All (scale, min) pairs come first, then all codes.
  std::vector<uint8_t> codes(fzm::packed_bytes(values.size()), 0);
  for (size_t first = 0; first < values.size(); first += kFzmGroupSize) {
    const size_t count = std::min<size_t>(kFzmGroupSize, values.size() - first);
    quantize_group(tensor, values.subspan(first, count), first, record, codes);
  }
  record.append(codes);
  return record;
}

}  // namespace

void write_fzm(ByteSink& sink, std::span<const TensorData> tensors) {
  if (tensors.size() > std::numeric_limits<uint32_t>::max())
    throw Error("too many tensors for fzm");
  std::set<std::string_view> names;
  for (const TensorData& tensor : tensors) check_writable(tensor, names);
  Record header;
  header.append(fzm::kMagic);
  header.put(static_cast<uint32_t>(tensors.size()));
  sink.write(header.bytes());
  for (const TensorData& tensor : tensors) sink.write(encode(tensor).bytes());
}

void save_fzm(const std::filesystem::path& path, std::span<const TensorData> tensors) {
  OutputFile file(path);
  OutputSink sink(file);
  write_fzm(sink, tensors);
  file.commit();
}

std::vector<uint8_t> fzm_bytes(std::span<const TensorData> tensors) {
  VectorSink sink;
  write_fzm(sink, tensors);
  return sink.take();
}

}  // namespace wgpt::io
