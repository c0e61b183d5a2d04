#pragma once
// wgpt::io — tensor files: safetensors (read and write) and Forge's q4 `.fzm` (read and write).
//
// A reader returns a TensorFile: the named tensors in file order plus the file's string metadata.
// Float tensors come back as f32 whatever the stored precision (F16 and BF16 are widened, q4 is
// dequantized); integer tensors (I64, I32, U32 — token ids in goldens) come back as int64.
//
// Readers never trust a header. Every offset, shape and size is checked against the bytes actually
// present before anything is read or allocated, so a truncated, corrupt or hostile file gives a
// wgpt::Error naming the source and the problem — never a crash and never an allocation larger
// than the input justifies.
//
// Files are memory-mapped where the platform allows it: an F32 tensor of a safetensors file is then
// a view into the mapping (no copy), and the mapping lives as long as any tensor viewing it. The
// browser build reads the file into memory instead. Writers are atomic: they write a temporary file
// beside the target and rename it over the target only once it is complete.
//
//   auto file = wgpt::io::load_tensors("model.safetensors");   // or .fzm: sniffed by content
//   std::span<const float> w = file.at("wte.weight").floats();
//   wgpt::io::save_safetensors("out.safetensors", file.tensors, {{"format", "pt"}});

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "wgpt/error.h"

namespace wgpt::io {

// How a tensor's elements are (or will be) stored in a file. The first six are safetensors dtypes;
// q4 is the `.fzm` 4-bit group quantization; q8_0 and q4_0 are GGUF's (llama.cpp's) blocks of 32
// elements with one f16 scale each.
enum class DType { f32, f16, bf16, i64, i32, u32, q4, q8_0, q4_0 };

// The file spelling: "F32", "F16", "BF16", "I64", "I32", "U32", "Q4", "Q8_0", "Q4_0".
std::string_view dtype_name(DType dtype);
// i64, i32 and u32 hold integers; the rest hold real numbers.
bool is_integer(DType dtype);

using Shape = std::vector<int64_t>;
// safetensors `__metadata__`: string keys to string values.
using Metadata = std::map<std::string, std::string>;

// IEEE half precision (F16) and bfloat16 (BF16) to and from f32. Narrowing rounds to nearest, ties
// to even (what PyTorch and safetensors writers do), overflows to infinity and keeps NaN a NaN.
float f16_to_f32(uint16_t half);
uint16_t f32_to_f16(float value);
float bf16_to_f32(uint16_t bf16);
uint16_t f32_to_bf16(float value);

// An f32's bits as a u32 and back (what WGSL's bitcast does; memcpy, not std::bit_cast: the
// browser toolchain's libc++ 14 lacks it).
inline uint32_t f32_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline float f32_from_bits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// One q4 group (the `.fzm` format's): element ≈ code · scale + min, code in 0..15.
struct Q4Group {
  float scale = 1.0f;
  float min = 0.0f;
};
// A q4 tensor as stored: groups of `group_size` consecutive row-major elements and one 4-bit code
// per element, packed two per byte (element i in byte i / 2, the low nibble when i is even).
struct Q4Data {
  uint32_t group_size = 0;
  std::vector<Q4Group> groups;
  std::vector<uint8_t> codes;
};
// Quantizes finite `values` as one group: scale = (max − min) / 15 (1 for a group whose spread is
// zero or underflows) and min, with each value's code (round to nearest, halves away from zero)
// written to `codes` (one byte per value). Throws when the spread overflows f32.
Q4Group quantize_q4_group(std::span<const float> values, std::span<uint8_t> codes);
// code · scale + min, rounded as the format defines: a rounded product, then a rounded sum.
float dequantize_q4(uint32_t code, const Q4Group& group);

// One named tensor: a shape, the dtype it is stored as, and its elements — f32 values for float
// dtypes, int64 values for integer dtypes. Copies are cheap: float values are shared, immutable.
class TensorData {
 public:
  // A float tensor owning `values`. `dtype` (f32, f16, bf16 or q4) is how a writer stores it.
  // Throws when the shape is negative or does not match values.size(), or dtype is an integer one.
  static TensorData from_floats(std::string name, Shape shape, std::vector<float> values,
                                DType dtype = DType::f32);
  // An integer tensor owning `values`. `dtype` (i64, i32 or u32) is how a writer stores it; a value
  // outside that type's range is an error when written.
  static TensorData from_ints(std::string name, Shape shape, std::vector<int64_t> values,
                              DType dtype = DType::i64);
  // An f32 tensor viewing memory that `owner` keeps alive (a mapped file), without a copy.
  static TensorData view_floats(std::string name, Shape shape, std::span<const float> values,
                                std::shared_ptr<const void> owner);

  const std::string& name() const { return name_; }
  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  bool is_integer() const { return io::is_integer(dtype_); }
  // Number of elements: the product of the shape (1 for a scalar of shape []).
  size_t numel() const;
  // The elements of a float tensor as f32; throws for an integer tensor.
  std::span<const float> floats() const;
  // The elements of an integer tensor; throws for a float tensor.
  std::span<const int64_t> ints() const;
  // True when floats() points into a mapped file rather than memory this tensor allocated.
  bool is_view() const { return is_view_; }
  // A q4 tensor read from `.fzm`: its groups and codes as stored (floats() holds their values),
  // for a consumer that keeps them quantized; nullptr otherwise.
  const Q4Data* q4() const { return q4_.get(); }
  // The same tensor carrying the q4 form its values were dequantized from.
  TensorData with_q4(Q4Data q4) const;
  // The same values (shared, not copied), to be stored as `dtype`: a float dtype for a float
  // tensor, an integer one for an integer tensor.
  TensorData stored_as(DType dtype) const;

 private:
  TensorData(std::string name, Shape shape, DType dtype);

  std::string name_;
  Shape shape_;
  DType dtype_;
  std::span<const float> floats_;
  std::shared_ptr<const void> float_owner_;  // keeps floats_ alive: owned storage or a mapping
  std::vector<int64_t> ints_;
  bool is_view_ = false;
  std::shared_ptr<const Q4Data> q4_;
};

// What a tensor file says about one tensor, from its header alone.
struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;  // as stored (q4 for every fzm tensor)
  Shape shape;
};

// The tensors of a file without their data (read_index), or of a loaded file (TensorFile::index).
struct TensorIndex {
  std::vector<TensorInfo> tensors;  // in file order
  Metadata metadata;

  const TensorInfo* find(std::string_view name) const;
};

// The content of one tensor file.
struct TensorFile {
  std::vector<TensorData> tensors;  // in file order
  Metadata metadata;                // safetensors `__metadata__`; always empty for .fzm

  // The tensor called `name`, or nullptr.
  const TensorData* find(std::string_view name) const;
  // The tensor called `name`; throws wgpt::Error naming it when absent.
  const TensorData& at(std::string_view name) const;
  // Names, dtypes and shapes.
  TensorIndex index() const;
};

class OutputFile;

// ---- safetensors
// --------------------------------------------------------------------------------- Reads dtypes
// F32, F16, BF16, I64, I32 and U32; any other dtype is an error naming the tensor. Tensors must
// tile the data section exactly (no gaps, no overlaps, nothing left over), as the reference
// implementation requires. `source` names the bytes in error messages.
TensorFile load_safetensors(const std::filesystem::path& path);
TensorFile load_safetensors(std::span<const uint8_t> bytes, std::string_view source = "<bytes>");

// A sharded checkpoint: `index` is HF's model.safetensors.index.json, whose "weight_map" names for
// every tensor the shard that holds it (a file name beside the index; no paths). Every tensor the
// index names must be in its shard, and every tensor of a shard must be in the index. The tensors
// come in the index's order of shards, each shard's in its file order.
TensorFile load_safetensors_index(const std::filesystem::path& index);

// Writes each tensor in the order given, as its dtype() (f16 and bf16 round to nearest even; q4,
// q8_0 and q4_0 tensors are written as F32, safetensors having no quantized types). The header is
// padded to a multiple of 8 bytes so that a mapped F32 tensor is aligned. Names must be unique and
// non-empty.
void save_safetensors(const std::filesystem::path& path, std::span<const TensorData> tensors,
                      const Metadata& metadata = {});
std::vector<uint8_t> safetensors_bytes(std::span<const TensorData> tensors,
                                       const Metadata& metadata = {});
// Into an open OutputFile, which the caller commits.
void write_safetensors(OutputFile& file, std::span<const TensorData> tensors,
                       const Metadata& metadata = {});

// ---- fzm (Forge q4)
// ------------------------------------------------------------------------------ Every tensor is
// stored as groups of kFzmGroupSize consecutive row-major elements, each group as (scale, min) and
// one 4-bit code per element: x ≈ code · scale + min with scale = (max − min) / 15, so an element
// is off by at most (max − min) / 30 of its group (plus f32 rounding). Reading dequantizes to f32;
// the tensors report dtype q4.
inline constexpr uint32_t kFzmGroupSize = 64;

TensorFile load_fzm(const std::filesystem::path& path);
TensorFile load_fzm(std::span<const uint8_t> bytes, std::string_view source = "<bytes>");

// Quantizes every tensor (all must be float tensors with finite values; at most 255 dimensions,
// each below 2^32; names below 64 KiB).
void save_fzm(const std::filesystem::path& path, std::span<const TensorData> tensors);
std::vector<uint8_t> fzm_bytes(std::span<const TensorData> tensors);

// ---- writing files
// ------------------------------------------------------------------------------------------------
// Every file wgpt writes follows one rule. The bytes go to a temporary file beside the target
// (NAME.tmp.PID.N); every write is checked; the file is flushed to disk (fsync) and closed
// (checked); only then is it renamed over the target. A failure anywhere is a wgpt::Error naming
// the target, and leaves the target exactly as it was. The target must be a regular file or
// absent: a directory, device, FIFO, socket or symbolic link in its place is refused, never
// replaced. Temporaries that killed processes left for a target are removed when it is next
// written.

class OutputFile {
 public:
  // Creates the temporary at once, so that an unwritable target fails before any work is done.
  explicit OutputFile(std::filesystem::path target);
  // Uncommitted (an exception on the way): removes the temporary; the target is untouched.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::span<const uint8_t> bytes);
  void write(std::string_view text);
  // Flushes the temporary to disk and closes it, checked. The target is still untouched.
  void close();
  // close(), then renames the temporary over the target.
  void commit();
  // Throws unless the target is a regular file or absent (checked on creation and on commit).
  void check_target() const;
  // After close(): the temporary now belongs to someone who renames it (DirectoryUpdate's
  // journal); the destructor leaves it.
  void release();
  const std::filesystem::path& target() const { return target_; }
  const std::filesystem::path& temporary() const { return temporary_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::filesystem::path target_;
  std::filesystem::path temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// An OutputFile holding `content`, committed.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);
// Appends `content` to a log file (created when missing; a regular file), every write checked.
void append_to_file(const std::filesystem::path& path, std::string_view content);

// Files of one directory replaced as one unit: a model directory's config.json and weights, a
// training checkpoint's files. Each file is written to its temporary at once; commit() then writes
// a journal naming them all (the commit point), renames each over its target and removes the
// journal. A process killed before the journal exists leaves the old files; one killed after it
// leaves an update that the next reader or writer of the directory finishes. Under the
// directory's lock (DirectoryReader), no reader ever sees some files old and others new.
class DirectoryUpdate {
 public:
  // Creates `dir` when missing, finishes an update a killed process left half done, and removes
  // the temporaries dead processes left in it.
  explicit DirectoryUpdate(std::filesystem::path dir);
  ~DirectoryUpdate();  // uncommitted: the temporaries are removed, the directory as it was
  DirectoryUpdate(const DirectoryUpdate&) = delete;
  DirectoryUpdate& operator=(const DirectoryUpdate&) = delete;

  void add_text(const std::string& name, std::string_view content);
  void add_safetensors(const std::string& name, std::span<const TensorData> tensors,
                       const Metadata& metadata = {});
  void add_fzm(const std::string& name, std::span<const TensorData> tensors);
  // `name` is removed by the same commit (the other format's weights when a model is saved).
  void remove(const std::string& name);
  void commit();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  OutputFile& add(const std::string& name);

  std::filesystem::path dir_;
  std::vector<std::unique_ptr<OutputFile>> files_;
  std::vector<std::string> removals_;
};

class DirectoryLock;

// Held while reading several files of one directory (config.json, the weights, the tokenizer):
// no DirectoryUpdate commits meanwhile, and one that a killed process left half done is finished
// first, so the files read all belong to one version. Throws wgpt::Error when such an update
// exists and this process cannot finish it (a read-only directory).
class DirectoryReader {
 public:
  explicit DirectoryReader(const std::filesystem::path& dir);
  ~DirectoryReader();
  DirectoryReader(const DirectoryReader&) = delete;
  DirectoryReader& operator=(const DirectoryReader&) = delete;

 private:
  std::unique_ptr<DirectoryLock> lock_;
};

// An output directory claimed for a whole run (`wgpt train --out`): a second claim, by this or any
// other process, fails at once with an error naming the holder's pid. The claim ends with the
// object, or with the process however it ends (the kernel drops it: a killed run leaves no stale
// claim). It lives in DIR/.wgpt-lock.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& dir);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

// Finishes an update of `dir` that a killed process left half done and removes the temporaries
// dead processes left in it; returns how many it removed. DirectoryUpdate does this itself; a
// command that writes into a directory over a long time (training) calls it when it starts.
size_t tidy_directory(const std::filesystem::path& dir);

// ---- whole files
// ----------------------------------------------------------------------------------------------
// The content of a regular file of at most `max_bytes` bytes. A missing file, a directory, a FIFO
// or a device (reading one could block forever or never end) and a larger file are refused with a
// wgpt::Error naming the path before a byte is read; `what` names the file's role in that message
// ("config.json is at most 1 MiB"). Tensor files are read through the same check.
std::string read_file(const std::filesystem::path& path, uint64_t max_bytes,
                      const char* what = "a file");

// ---- either
// --------------------------------------------------------------------------------------
enum class Format { safetensors, fzm, gguf };

// By content, never by file name: bytes starting with "FZM1" are fzm, with "GGUF" GGUF, anything
// else safetensors. load_tensors gives a GGUF file's tensors under the file's own names.
Format detect_format(std::span<const uint8_t> bytes);
TensorFile load_tensors(const std::filesystem::path& path);
TensorFile load_tensors(std::span<const uint8_t> bytes, std::string_view source = "<bytes>");

// The tensors a file holds — names, stored dtypes and shapes — from its headers alone, without
// reading, converting or dequantizing their data (a scan of a folder of checkpoints touches only
// the pages that hold headers). The same checks as the full readers: a file whose index reads
// also loads. Told apart by content, as load_tensors.
TensorIndex read_index(const std::filesystem::path& path);
TensorIndex read_index(std::span<const uint8_t> bytes, std::string_view source = "<bytes>");

}  // namespace wgpt::io
