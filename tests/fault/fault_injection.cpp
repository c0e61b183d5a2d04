// A fault-injection shim for the command-line tests, loaded with LD_PRELOAD: it makes the file
// operations of wgpt fail, or kills the process, at chosen moments — a full disk, a failing fsync,
// a kill -9 between any two steps of writing a checkpoint. Nothing in wgpt knows about it.
//
// It only touches operations on paths containing $WGPT_FAULT_PATH (for write, fsync and close: the
// path the descriptor was opened as). The environment chooses the fault:
//   WGPT_FAULT_ENOSPC_AFTER=N  writes succeed for N bytes in all, then fail with ENOSPC (short
//                              writes up to the limit, as a full disk gives them)
//   WGPT_FAULT_FSYNC_ERRNO=E   fsync and fdatasync fail with errno E (5: EIO)
//   WGPT_FAULT_KILL_AT=K       SIGKILL at the K-th operation (1-based) of write, fsync, close,
//                              rename, unlink and remove, just before it happens
//   WGPT_FAULT_COUNT_TO=FILE   at exit, writes how many such operations there were into FILE
#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// The libc function this one stands in front of (memcpy: ISO C++ has no object-to-function cast).
template <class Function>
Function next(const char* name) {
  void* symbol = dlsym(RTLD_NEXT, name);
  Function function;
  std::memcpy(&function, &symbol, sizeof function);
  return function;
}

const char* setting(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

long long number(const char* name, long long otherwise) {
  const char* value = setting(name);
  return value ? std::atoll(value) : otherwise;
}

bool matches(const char* path) {
  const char* pattern = setting("WGPT_FAULT_PATH");
  return pattern && path && std::strstr(path, pattern) != nullptr;
}

bool fd_matches(int fd) {
  if (fd < 0 || !setting("WGPT_FAULT_PATH")) return false;
  char link[64], path[4096];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0) return false;
  path[length] = '\0';
  return matches(path);
}

long long operations = 0;
long long bytes_written = 0;

// Counts an operation on a matching path, and kills the process when it is the chosen one.
void operation() {
  ++operations;
  if (operations == number("WGPT_FAULT_KILL_AT", 0)) kill(getpid(), SIGKILL);
}

struct CountAtExit {
  ~CountAtExit() {
    if (const char* file = setting("WGPT_FAULT_COUNT_TO")) {
      if (FILE* out = std::fopen(file, "w")) {
        std::fprintf(out, "%lld\n", operations);
        std::fclose(out);
      }
    }
  }
} count_at_exit;

int fsync_fault(int fd) {
  if (!fd_matches(fd)) return 0;
  operation();
  if (const long long error = number("WGPT_FAULT_FSYNC_ERRNO", 0)) {
    errno = static_cast<int>(error);
    return -1;
  }
  return 0;
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* buffer, size_t count) {
  static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
  if (fd_matches(fd)) {
    operation();
    const long long limit = number("WGPT_FAULT_ENOSPC_AFTER", -1);
    if (limit >= 0) {
      const long long left = limit - bytes_written;
      if (left <= 0) {
        errno = ENOSPC;
        return -1;
      }
      if (static_cast<long long>(count) > left) count = static_cast<size_t>(left);
    }
    const ssize_t written = real(fd, buffer, count);
    if (written > 0) bytes_written += written;
    return written;
  }
  return real(fd, buffer, count);
}

int fsync(int fd) {
  static const auto real = next<int (*)(int)>("fsync");
  return fsync_fault(fd) != 0 ? -1 : real(fd);
}

int fdatasync(int fd) {
  static const auto real = next<int (*)(int)>("fdatasync");
  return fsync_fault(fd) != 0 ? -1 : real(fd);
}

int close(int fd) {
  static const auto real = next<int (*)(int)>("close");
  if (fd_matches(fd)) operation();
  return real(fd);
}

int rename(const char* from, const char* to) {
  static const auto real = next<int (*)(const char*, const char*)>("rename");
  if (matches(from) || matches(to)) operation();
  return real(from, to);
}

int unlink(const char* path) {
  static const auto real = next<int (*)(const char*)>("unlink");
  if (matches(path)) operation();
  return real(path);
}

int remove(const char* path) {
  static const auto real = next<int (*)(const char*)>("remove");
  if (matches(path)) operation();
  return real(path);
}

}  // extern "C"
