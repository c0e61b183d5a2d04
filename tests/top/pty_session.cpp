#include "top/pty_session.h"

#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace wgpt::test {

std::string plain_text(const std::string& raw) {
  std::string text;
  auto space = [&] {
    if (!text.empty() && text.back() != ' ') text += ' ';
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c == 0x1b && i + 1 < raw.size()) {
      const char kind = raw[++i];
      if (kind == '[') {  // CSI: parameters and intermediates, then one final byte
        while (i + 1 < raw.size() && !(raw[i + 1] >= 0x40 && raw[i + 1] <= 0x7e)) ++i;
        ++i;
      } else if (kind == ']') {  // OSC: up to BEL or ESC backslash
        while (i + 1 < raw.size() && raw[i + 1] != '\a' && raw[i + 1] != 0x1b) ++i;
        ++i;
      } else if (kind == '(' || kind == ')') {
        ++i;  // a character set: one more byte
      }
      space();
    } else if (c < 0x20 || c == 0x7f) {
      space();
    } else if (c == ' ') {
      space();
    } else {
      text += raw[i];
    }
  }
  return text;
}

PtySession::PtySession(const std::vector<std::string>& argv,
                       const std::vector<std::string>& environment, int rows, int columns) {
  winsize size{};
  size.ws_row = static_cast<unsigned short>(rows);
  size.ws_col = static_cast<unsigned short>(columns);
  child_ = forkpty(&terminal_, nullptr, nullptr, &size);
  if (child_ < 0) throw std::runtime_error("forkpty failed");
  if (child_ == 0) {
    for (const std::string& entry : environment) putenv(const_cast<char*>(entry.c_str()));
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

PtySession::~PtySession() {
  if (child_ > 0 && !wait_exit(std::chrono::milliseconds(0))) {
    kill(child_, SIGKILL);  // our own child, by its id
    waitpid(child_, nullptr, 0);
  }
  if (terminal_ >= 0) close(terminal_);
}

void PtySession::send(const std::string& keys) {
  if (write(terminal_, keys.data(), keys.size()) != static_cast<ssize_t>(keys.size())) {
    throw std::runtime_error("could not write to the terminal");
  }
}

void PtySession::mark() {
  raw_.clear();
  text_.clear();
}

bool PtySession::read_some(int timeout_ms) {
  pollfd ready{terminal_, POLLIN, 0};
  if (poll(&ready, 1, timeout_ms) <= 0) return true;
  char buffer[8192];
  const ssize_t n = read(terminal_, buffer, sizeof buffer);
  if (n <= 0) return false;  // EIO: the program closed the terminal
  raw_.append(buffer, static_cast<size_t>(n));
  text_ = plain_text(raw_);
  return true;
}

std::optional<std::smatch> PtySession::wait_for(const std::regex& pattern,
                                                std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::smatch match;
    if (std::regex_search(text_, match, pattern)) return match;
    if (std::chrono::steady_clock::now() >= deadline || !read_some(50)) return std::nullopt;
  }
}

std::optional<int> PtySession::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    if (waitpid(child_, &status, WNOHANG) == child_) {
      child_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    read_some(20);  // keep the terminal drained so the program never blocks writing to it
  }
}

}  // namespace wgpt::test
