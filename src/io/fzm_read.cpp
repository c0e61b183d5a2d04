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

// One tensor's record, checked, its groups and codes still packed.
struct Record {
  std::string name;
  Shape shape;
  uint64_t numel;
  uint32_t group_size;
  std::span<const uint8_t> groups, codes;
};

Record read_record(ByteReader& reader, size_t index, std::set<std::string>& names) {
  const std::string context = "tensor #" + std::to_string(index);
  const auto name_length = reader.read<uint16_t>(context + " name length");
  const auto name_bytes = reader.take(name_length, context + " name");
  Record record;
  record.name.assign(name_bytes.begin(), name_bytes.end());
  if (record.name.empty()) reader.fail(context + " has an empty name");
  if (!names.insert(record.name).second) reader.fail("two tensors are named '" + record.name + "'");

  const std::string where = "tensor '" + record.name + "'";
  const auto ndim = reader.read<uint8_t>(where + " rank");
  for (uint8_t d = 0; d < ndim; ++d)
    record.shape.push_back(reader.read<uint32_t>(where + " shape"));
  const auto numel = element_count(record.shape);
  if (!numel) reader.fail(where + ": shape " + shape_string(record.shape) + " is too large");
  record.numel = *numel;

  record.group_size = reader.read<uint32_t>(where + " group size");
  if (record.group_size == 0) reader.fail(where + " has group size 0");
  const auto groups = reader.read<uint32_t>(where + " group count");
  const uint64_t expected_groups = fzm::group_count(*numel, record.group_size);
  if (groups != expected_groups) {
    reader.fail(where + " has " + std::to_string(groups) + " groups; " +
                shape_string(record.shape) + " in groups of " + std::to_string(record.group_size) +
                " needs " + std::to_string(expected_groups));
  }
  record.groups = reader.take(groups * fzm::kGroupRecordBytes, where + " groups");
  // The codes are in the input, so numel is bounded by the input's size before anyone allocates.
  record.codes = reader.take(fzm::packed_bytes(*numel), where + " codes");
  return record;
}

// Checks the magic, then hands every record to `visit` in file order and checks nothing follows.
template <class Visit>
void walk_records(std::span<const uint8_t> bytes, std::string_view source, Visit visit) {
  ByteReader reader(bytes, source);
  const auto magic = reader.take(sizeof fzm::kMagic, "the magic number");
  if (std::memcmp(magic.data(), fzm::kMagic, sizeof fzm::kMagic) != 0) {
    reader.fail("not an fzm file: it does not start with \"FZM1\"");
  }
  const auto count = reader.read<uint32_t>("the tensor count");
  // Nothing is reserved for `count`: a lying count runs out of bytes, not memory.
  std::set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) visit(read_record(reader, i, names));
  if (reader.remaining() != 0) {
    reader.fail(std::to_string(reader.remaining()) + " bytes follow the last of " +
                std::to_string(count) + " tensors");
  }
}

}  // namespace

TensorFile parse_fzm(std::span<const uint8_t> bytes, std::string_view source) {
  TensorFile file;
  walk_records(bytes, source, [&](Record record) {
    Q4Data q4{record.group_size,
              std::vector<Q4Group>(record.groups.size() / sizeof(Q4Group)),
              {record.codes.begin(), record.codes.end()}};
    std::memcpy(q4.groups.data(), record.groups.data(), record.groups.size());
    std::vector<float> values = dequantize(q4, record.numel);
    file.tensors.push_back(TensorData::from_floats(std::move(record.name), std::move(record.shape),
                                                   std::move(values), DType::q4)
                               .with_q4(std::move(q4)));
  });
  return file;
}

TensorIndex index_fzm(std::span<const uint8_t> bytes, std::string_view source) {
  TensorIndex index;
  walk_records(bytes, source, [&](Record record) {
    index.tensors.push_back({std::move(record.name), DType::q4, std::move(record.shape)});
  });
  return index;
}

}  // namespace wgpt::io
