#include "host.h"

#include <fstream>
#include <vector>

#if defined(_WIN32)
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif
#if defined(__APPLE__)
#include <crt_externs.h>
#include <mach-o/dyld.h>
#endif

namespace wgpt::cli {
namespace {

// Arguments joined by spaces, single-quoted where a POSIX shell would need it.
std::string quoted(const std::vector<std::string>& arguments) {
  std::string line;
  for (const std::string& arg : arguments) {
    const bool quote = arg.empty() || arg.find_first_of(" \t\n'\"$") != std::string::npos;
    line += (line.empty() ? "" : " ") + (quote ? "'" + arg + "'" : arg);
  }
  return line;
}

}  // namespace

bool is_terminal(std::FILE* stream) {
#if defined(_WIN32)
  return _isatty(_fileno(stream)) != 0;
#else
  return ::isatty(fileno(stream)) == 1;
#endif
}

#if defined(_WIN32)

std::optional<std::filesystem::path> executable_path() {
  std::wstring buffer(MAX_PATH, L'\0');
  for (;;) {
    const DWORD length = GetModuleFileNameW(nullptr, buffer.data(), DWORD(buffer.size()));
    if (length == 0) return std::nullopt;
    if (length < buffer.size()) return std::filesystem::path(buffer.substr(0, length));
    buffer.resize(buffer.size() * 2);
  }
}

std::string command_line() {
  // Windows keeps the command line as one string; it is recorded as it is.
  return std::filesystem::path(GetCommandLineW()).string();
}

#elif defined(__APPLE__)

std::optional<std::filesystem::path> executable_path() {
  uint32_t size = 0;
  _NSGetExecutablePath(nullptr, &size);
  std::string buffer(size, '\0');
  if (_NSGetExecutablePath(buffer.data(), &size) != 0) return std::nullopt;
  std::error_code error;
  const auto resolved = std::filesystem::weakly_canonical(buffer.c_str(), error);
  if (error) return std::nullopt;
  return resolved;
}

std::string command_line() {
  const int count = *_NSGetArgc();
  char** values = *_NSGetArgv();
  return quoted(std::vector<std::string>(values, values + count));
}

#elif defined(__linux__)

std::optional<std::filesystem::path> executable_path() {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return std::nullopt;
  return path;
}

std::string command_line() {
  std::ifstream file("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> arguments;
  for (std::string arg; std::getline(file, arg, '\0');) arguments.push_back(arg);
  return quoted(arguments);
}

#else

// Other systems: no data folder beside the executable ($WGPT_DATA_DIR still works), and no
// command line in metrics.json.
std::optional<std::filesystem::path> executable_path() { return std::nullopt; }
std::string command_line() { return ""; }

#endif

}  // namespace wgpt::cli
