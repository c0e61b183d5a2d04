// fzm reader: walks the packed records with a bounds-checked cursor and dequantizes every tensor.

#include <algorithm>
#include <cstring>
#include <set>

#include "io/byte_reader.h"
#include "io/element_count.h"
#include "io/formats.h"
#include "io/fzm_layout.h"

namespace wgpt::io {
namespace {

static_assert(sizeof(Q4Group) == fzm::kGroupRecordBytes, "a group record is (scale, min)");

// The values the groups and codes stand for.
std::vector<float> dequantize(const Q4Data& q4, uint64_t numel) {
  std::vector<float> values(static_cast<size_t>(numel));
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t byte = q4.codes[i / 2];
    values[i] = dequantize_q4(i % 2 == 0 ? byte & 0x0f : byte >> 4, q4.groups[i / q4.group_size]);
  }
  return values;
}

TensorData read_tensor(ByteReader& reader, size_t index, std::set<std::string>& names) {
  const std::string context = "tensor #" + std::to_string(index);
  const auto name_length = reader.read<uint16_t>(context + " name length");
  const auto name_bytes = reader.take(name_length, context + " name");
  std::string name(name_bytes.begin(), name_bytes.end());
  if (name.empty()) reader.fail(context + " has an empty name");
  if (!names.insert(name).second) reader.fail("two tensors are named '" + name + "'");

  const std::string where = "tensor '" + name + "'";
  const auto ndim = reader.read<uint8_t>(where + " rank");
  Shape shape;
  for (uint8_t d = 0; d < ndim; ++d) shape.push_back(reader.read<uint32_t>(where + " shape"));
  const auto numel = element_count(shape);
  if (!numel) reader.fail(where + ": shape " + shape_string(shape) + " is too large");

  const auto group_size = reader.read<uint32_t>(where + " group size");
  if (group_size == 0) reader.fail(where + " has group size 0");
  const auto groups = reader.read<uint32_t>(where + " group count");
  const uint64_t expected_groups = fzm::group_count(*numel, group_size);
  if (groups != expected_groups) {
    reader.fail(where + " has " + std::to_string(groups) + " groups; " + shape_string(shape) +
                " in groups of " + std::to_string(group_size) + " needs " +
                std::to_string(expected_groups));
  }
  const auto group_bytes = reader.take(groups * fzm::kGroupRecordBytes, where + " groups");
  // The codes are in the input, so numel is bounded by the input's size before we allocate.
  const auto codes = reader.take(fzm::packed_bytes(*numel), where + " codes");
  Q4Data q4{group_size, std::vector<Q4Group>(groups), {codes.begin(), codes.end()}};
  std::memcpy(q4.groups.data(), group_bytes.data(), group_bytes.size());
  std::vector<float> values = dequantize(q4, *numel);
  return TensorData::from_floats(std::move(name), std::move(shape), std::move(values), DType::q4)
      .with_q4(std::move(q4));
}

}  // namespace

TensorFile parse_fzm(std::span<const uint8_t> bytes, std::string_view source) {
  ByteReader reader(bytes, source);
  const auto magic = reader.take(sizeof fzm::kMagic, "the magic number");
  if (std::memcmp(magic.data(), fzm::kMagic, sizeof fzm::kMagic) != 0) {
    reader.fail("not an fzm file: it does not start with \"FZM1\"");
  }
  const auto count = reader.read<uint32_t>("the tensor count");
  TensorFile file;
  // A lying count must not reserve more than the remaining bytes could describe.
  file.tensors.reserve(std::min<uint64_t>(count, reader.remaining() / fzm::kMinRecordBytes));
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) file.tensors.push_back(read_tensor(reader, i, names));
  if (reader.remaining() != 0) {
    reader.fail(std::to_string(reader.remaining()) + " bytes follow the last of " +
                std::to_string(count) + " tensors");
  }
  return file;
}

}  // namespace wgpt::io
