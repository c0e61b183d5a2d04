#pragma once
// The journal of a DirectoryUpdate (DIR/.wgpt-update): present only between an update's commit
// point and the end of its renames, so finding one without a live writer holding the directory's
// lock means a process was killed in between. Finishing it repeats the renames that are left.

#include <filesystem>

namespace wgpt::io {

inline constexpr const char* kJournalName = ".wgpt-update";

bool has_pending_update(const std::filesystem::path& dir);
// Completes the journal's renames and removals, then removes the journal. The caller holds the
// directory's exclusive lock.
void finish_pending_update(const std::filesystem::path& dir);

}  // namespace wgpt::io
