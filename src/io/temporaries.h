#pragma once
// The temporary files outputs are written to before they are renamed into place: one name per
// process and output, NAME.tmp.PID.N beside NAME, so that concurrent writers never share one, and
// so that a temporary a killed process left behind can be told from a live writer's.

#include <cstddef>
#include <filesystem>

namespace wgpt::io {

// A name beside `target` that no other thread or live process uses.
std::filesystem::path temporary_beside(const std::filesystem::path& target);

// Removes the temporaries in `dir` whose writer is no longer running — of the file `name` only,
// or of every file when `name` is empty — and returns how many. The caller holds the directory's
// exclusive lock and has finished any pending update first (its temporaries are still wanted).
size_t remove_dead_temporaries(const std::filesystem::path& dir, const std::string& name = {});

}  // namespace wgpt::io
