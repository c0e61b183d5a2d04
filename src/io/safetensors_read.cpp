// safetensors reader: an 8-byte little-endian header length, a JSON header mapping each tensor name
// to {dtype, shape, data_offsets} (plus optional `__metadata__`), then the data section.

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "io/byte_reader.h"
#include "io/element_count.h"
#include "io/element_decode.h"
#include "io/formats.h"

namespace wgpt::io {
namespace {

using nlohmann::json;

// The reference implementation's limit: a larger header is treated as hostile.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t numel;
  uint64_t begin;
  uint64_t end;
};

size_t element_bytes(DType dtype) {
  switch (dtype) {
    case DType::f16:
    case DType::bf16:
      return 2;
    case DType::i64:
      return 8;
    default:
      return 4;
  }
}

DType parse_dtype(const ByteReader& reader, const std::string& name, const json& value) {
  static constexpr DType kReadable[] = {DType::f32, DType::f16, DType::bf16,
                                        DType::i64, DType::i32, DType::u32};
  if (value.is_string()) {
    for (const DType dtype : kReadable) {
      if (value.get_ref<const std::string&>() == dtype_name(dtype)) return dtype;
    }
  }
  reader.fail("tensor '" + name + "' has dtype " + value.dump() +
              "; wgpt reads F32, F16, BF16, I64, I32 and U32");
}

uint64_t parse_unsigned(const ByteReader& reader, const std::string& name, const char* field,
                        const json& value) {
  if (!value.is_number_unsigned()) {
    reader.fail("tensor '" + name + "': " + field + " holds " + value.dump() +
                ", not a non-negative integer");
  }
  return value.get<uint64_t>();
}

Entry parse_entry(const ByteReader& reader, const std::string& name, const json& value) {
  if (!value.is_object()) reader.fail("tensor '" + name + "' is described by a non-object");
  const auto field = [&](const char* key) -> const json& {
    const auto it = value.find(key);
    if (it == value.end()) reader.fail("tensor '" + name + "' has no \"" + key + "\"");
    return *it;
  };
  Entry entry{name, parse_dtype(reader, name, field("dtype")), {}, 0, 0, 0};

  const json& shape = field("shape");
  if (!shape.is_array()) reader.fail("tensor '" + name + "': shape is not an array");
  for (const json& dim : shape) {
    const uint64_t d = parse_unsigned(reader, name, "shape", dim);
    if (d > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      reader.fail("tensor '" + name + "': dimension " + std::to_string(d) + " is too large");
    }
    entry.shape.push_back(static_cast<int64_t>(d));
  }
  const auto numel = element_count(entry.shape);
  if (!numel) {
    reader.fail("tensor '" + name + "': shape " + shape_string(entry.shape) + " is too large");
  }
  entry.numel = *numel;

  const json& offsets = field("data_offsets");
  if (!offsets.is_array() || offsets.size() != 2) {
    reader.fail("tensor '" + name + "': data_offsets is not a [begin, end] pair");
  }
  entry.begin = parse_unsigned(reader, name, "data_offsets", offsets[0]);
  entry.end = parse_unsigned(reader, name, "data_offsets", offsets[1]);
  if (entry.end < entry.begin) reader.fail("tensor '" + name + "': data_offsets end before begin");
  // Division, not multiplication: a lying shape cannot overflow the comparison.
  const uint64_t bytes = entry.end - entry.begin;
  const size_t size = element_bytes(entry.dtype);
  if (bytes % size != 0 || bytes / size != entry.numel) {
    reader.fail("tensor '" + name + "': " + std::to_string(bytes) + " data bytes do not hold " +
                std::string(dtype_name(entry.dtype)) + " " + shape_string(entry.shape));
  }
  return entry;
}

Metadata parse_metadata(const ByteReader& reader, const json& value) {
  if (!value.is_object()) reader.fail("__metadata__ is not an object");
  Metadata metadata;
  for (const auto& [key, text] : value.items()) {
    if (!text.is_string()) reader.fail("__metadata__ value of '" + key + "' is not a string");
    metadata.emplace(key, text.get<std::string>());
  }
  return metadata;
}

// The reference implementation's rule: tensors tile the data section exactly, in offset order.
void check_tiling(const ByteReader& reader, std::vector<Entry>& entries, uint64_t data_bytes) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t expected = 0;
  for (const Entry& entry : entries) {
    if (entry.begin != expected) {
      reader.fail("tensor '" + entry.name + "' starts at data offset " +
                  std::to_string(entry.begin) + ", expected " + std::to_string(expected) +
                  " (tensors overlap or leave a gap)");
    }
    expected = entry.end;
  }
  if (expected != data_bytes) {
    reader.fail("the header describes " + std::to_string(expected) +
                " data bytes but the data section holds " + std::to_string(data_bytes) +
                (expected > data_bytes ? " (truncated file?)" : ""));
  }
}

TensorData decode(const Entry& entry, std::span<const uint8_t> bytes,
                  const std::shared_ptr<const void>& owner) {
  if (auto tensor =
          decode_elements(entry.name, entry.shape, entry.dtype, bytes, entry.numel, owner)) {
    return std::move(*tensor);
  }
  // parse_dtype admits only the plain dtypes.
  throw Error("tensor '" + entry.name + "': no safetensors decoder for its dtype");
}

// The checked header: every tensor's entry (in data order) and the metadata.
struct Header {
  std::vector<Entry> entries;
  Metadata metadata;
  std::span<const uint8_t> data;
};

Header parse_header(std::span<const uint8_t> bytes, std::string_view source) {
  ByteReader reader(bytes, source);
  const auto header_bytes = reader.read<uint64_t>("the header length");
  if (header_bytes > kMaxHeaderBytes) {
    reader.fail("the header length " + std::to_string(header_bytes) +
                " is implausible (not a safetensors file?)");
  }
  const auto header_text = reader.take(header_bytes, "the JSON header");
  Header parsed;
  parsed.data = bytes.subspan(reader.offset());

  json header;
  try {
    header = json::parse(header_text.begin(), header_text.end());
  } catch (const json::exception& e) {
    reader.fail(std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) reader.fail("the header is not a JSON object");
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      parsed.metadata = parse_metadata(reader, value);
    } else {
      parsed.entries.push_back(parse_entry(reader, key, value));
    }
  }
  check_tiling(reader, parsed.entries, parsed.data.size());
  return parsed;
}

}  // namespace

TensorFile parse_safetensors(std::span<const uint8_t> bytes, std::string_view source,
                             const std::shared_ptr<const void>& owner) {
  const Header header = parse_header(bytes, source);
  TensorFile file;
  file.metadata = header.metadata;
  file.tensors.reserve(header.entries.size());
  for (const Entry& entry : header.entries) {
    const auto tensor_bytes = header.data.subspan(static_cast<size_t>(entry.begin),
                                                  static_cast<size_t>(entry.end - entry.begin));
    file.tensors.push_back(decode(entry, tensor_bytes, owner));
  }
  return file;
}

TensorIndex index_safetensors(std::span<const uint8_t> bytes, std::string_view source) {
  Header header = parse_header(bytes, source);
  TensorIndex index;
  index.metadata = std::move(header.metadata);
  for (Entry& entry : header.entries) {
    index.tensors.push_back({std::move(entry.name), entry.dtype, std::move(entry.shape)});
  }
  return index;
}

}  // namespace wgpt::io
