// DirectoryUpdate and DirectoryReader: several files of one directory replaced as one unit, and
// read as one version (wgpt/io.h).
#include <cstdio>

#include "io/byte_sink.h"
#include "io/directory_lock.h"
#include "io/formats.h"
#include "io/pending_update.h"
#include "io/temporaries.h"

namespace wgpt::io {
namespace {

constexpr std::string_view kJournalHeader = "wgpt directory update 1\n";
constexpr uint64_t kMaxJournalBytes = 1 << 20;

// A plain file name of the directory: the journal holds one per line, tab-separated.
void require_plain_name(const std::filesystem::path& dir, const std::string& name) {
  if (name.empty() || name == "." || name == ".." ||
      name.find_first_of("/\t\n") != std::string::npos) {
    throw Error("cannot write into " + dir.string() + ": '" + name + "' is not a plain file name");
  }
}

// Splits a journal line "verb\tname[\tname]".
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
    out.push_back(line.substr(start, tab - start));
  }
  out.push_back(line.substr(start));
  return out;
}

}  // namespace

bool has_pending_update(const std::filesystem::path& dir) {
  std::error_code error;
  return std::filesystem::exists(dir / kJournalName, error);
}

void finish_pending_update(const std::filesystem::path& dir) {
  const std::filesystem::path journal = dir / kJournalName;
  const std::string text = read_file(journal, kMaxJournalBytes, "an update journal");
  auto damaged = [&] { return Error(journal.string() + " is not a wgpt update journal"); };
  if (text.rfind(kJournalHeader, 0) != 0) throw damaged();
  size_t start = kJournalHeader.size();
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::vector<std::string> line = fields(text.substr(start, end - start));
    std::error_code error;
    if (line.size() == 3 && line[0] == "rename") {
      require_plain_name(dir, line[1]);
      require_plain_name(dir, line[2]);
      // A temporary that is gone was renamed before the process died.
      if (std::filesystem::exists(dir / line[1], error)) {
        std::filesystem::rename(dir / line[1], dir / line[2], error);
      }
    } else if (line.size() == 2 && line[0] == "remove") {
      require_plain_name(dir, line[1]);
      std::filesystem::remove(dir / line[1], error);  // no error when it is already gone
    } else {
      throw damaged();
    }
    if (error)
      throw Error("cannot update " + dir.string() + ": " + line[0] + " " + line[1] + ": " +
                  error.message());
  }
  sync_directory(dir);
  std::error_code error;
  std::filesystem::remove(journal, error);
  if (error) throw Error("cannot remove " + journal.string() + ": " + error.message());
  sync_directory(dir);
}

size_t tidy_directory(const std::filesystem::path& dir) {
  DirectoryLock lock(dir, DirectoryLock::Mode::exclusive);
  if (has_pending_update(dir)) finish_pending_update(dir);
  return remove_dead_temporaries(dir);
}

DirectoryUpdate::DirectoryUpdate(std::filesystem::path dir) : dir_(std::move(dir)) {
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (!std::filesystem::is_directory(dir_, error)) {
    throw Error("cannot write into " + dir_.string() + ": it is not a directory" +
                (error ? " (" + error.message() + ")" : ""));
  }
  tidy_directory(dir_);
}

DirectoryUpdate::~DirectoryUpdate() = default;

OutputFile& DirectoryUpdate::add(const std::string& name) {
  require_plain_name(dir_, name);
  for (const auto& file : files_) {
    if (file->target().filename() == name) throw Error("an update writes " + name + " twice");
  }
  files_.push_back(std::make_unique<OutputFile>(dir_ / name));
  return *files_.back();
}

void DirectoryUpdate::add_text(const std::string& name, std::string_view content) {
  OutputFile& file = add(name);
  file.write(content);
  file.close();
}

void DirectoryUpdate::add_safetensors(const std::string& name, std::span<const TensorData> tensors,
                                      const Metadata& metadata) {
  OutputFile& file = add(name);
  OutputSink sink(file);
  write_safetensors(sink, tensors, metadata);
  file.close();
}

void DirectoryUpdate::add_fzm(const std::string& name, std::span<const TensorData> tensors) {
  OutputFile& file = add(name);
  OutputSink sink(file);
  write_fzm(sink, tensors);
  file.close();
}

void DirectoryUpdate::remove(const std::string& name) {
  require_plain_name(dir_, name);
  removals_.push_back(name);
}

void DirectoryUpdate::commit() {
  std::string text(kJournalHeader);
  for (const auto& file : files_) {
    text += "rename\t" + file->temporary().filename().string() + "\t" +
            file->target().filename().string() + "\n";
  }
  for (const std::string& name : removals_) text += "remove\t" + name + "\n";
  OutputFile journal(dir_ / kJournalName);  // before the lock: creating it takes the lock
  journal.write(text);
  journal.close();
  DirectoryLock lock(dir_, DirectoryLock::Mode::exclusive);
  if (has_pending_update(dir_)) finish_pending_update(dir_);  // a writer killed meanwhile
  for (const auto& file : files_) file->check_target();
  journal.commit();  // the commit point: from here on the update happens, if need be by another
  for (const auto& file : files_) file->release();
  // The very renames a later reader or writer makes should this process die here.
  finish_pending_update(dir_);
}

DirectoryReader::DirectoryReader(const std::filesystem::path& dir)
    : lock_(std::make_unique<DirectoryLock>(dir, DirectoryLock::Mode::shared)) {
  if (!has_pending_update(dir)) return;
  lock_->change(DirectoryLock::Mode::exclusive);
  try {
    if (has_pending_update(dir)) finish_pending_update(dir);
  } catch (const std::exception& error) {
    throw Error(dir.string() + " holds an update that a killed process left half done (" +
                kJournalName + "), and it cannot be finished here: " + error.what());
  }
  lock_->change(DirectoryLock::Mode::shared);
}

DirectoryReader::~DirectoryReader() = default;

}  // namespace wgpt::io
