#include "io/temporaries.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <string>

namespace wgpt::io {
namespace {

constexpr std::string_view kMarker = ".tmp.";

// The pid of a temporary's writer, and the output it was for; pid 0 when `file` is no temporary.
struct TemporaryName {
  std::string output;
  long pid = 0;
};

TemporaryName parse(const std::string& file) {
  const size_t marker = file.rfind(kMarker);
  if (marker == std::string::npos || marker == 0) return {};
  const std::string_view rest = std::string_view(file).substr(marker + kMarker.size());
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return {};
  long pid = 0;
  unsigned long long counter = 0;
  const auto [pid_end, pid_error] = std::from_chars(rest.data(), rest.data() + dot, pid);
  const auto [end, error] =
      std::from_chars(rest.data() + dot + 1, rest.data() + rest.size(), counter);
  if (pid_error != std::errc() || pid_end != rest.data() + dot || error != std::errc() ||
      end != rest.data() + rest.size() || pid <= 0) {
    return {};
  }
  return {file.substr(0, marker), pid};
}

bool running(long pid) {
#ifdef __EMSCRIPTEN__
  (void)pid;
  return true;  // one process only: nothing is ever stale
#else
  // EPERM: the process exists but belongs to someone else.
  return pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
#endif
}

}  // namespace

std::filesystem::path temporary_beside(const std::filesystem::path& target) {
  static std::atomic<uint64_t> counter{0};
  return target.string() + std::string(kMarker) + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1));
}

size_t remove_dead_temporaries(const std::filesystem::path& dir, const std::string& name) {
  std::error_code error;
  size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const TemporaryName temporary = parse(entry.path().filename().string());
    if (temporary.pid == 0 || (!name.empty() && temporary.output != name)) continue;
    if (!entry.is_regular_file(error) || running(temporary.pid)) continue;
    if (std::filesystem::remove(entry.path(), error)) ++removed;
  }
  return removed;
}

}  // namespace wgpt::io
