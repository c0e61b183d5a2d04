#include "serve/connection_watch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>
#include <filesystem>

namespace wgpt::serve {
namespace {

// The address and port of a socket's end, or a port of -1 when it is not an internet socket.
std::pair<std::string, int> endpoint(int fd, bool peer) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  auto* raw = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? getpeername(fd, raw, &length) : getsockname(fd, raw, &length)) != 0) return {{}, -1};
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
    return {text, ntohs(v4->sin_port)};
  }
  if (address.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
    return {text, ntohs(v6->sin6_port)};
  }
  return {{}, -1};
}

}  // namespace

ConnectionWatch::ConnectionWatch(const std::string& remote_ip, int remote_port, int local_port) {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", error)) {
    const int fd = std::atoi(entry.path().filename().c_str());
    if (endpoint(fd, false).second != local_port) continue;
    if (endpoint(fd, true) == std::pair(remote_ip, remote_port)) {
      socket_ = fd;
      return;
    }
  }
}

bool ConnectionWatch::closed() const {
  if (socket_ < 0) return false;
  pollfd watched{socket_, POLLIN | POLLRDHUP, 0};
  if (poll(&watched, 1, 0) <= 0) return false;
  if (watched.revents & (POLLHUP | POLLERR | POLLRDHUP | POLLNVAL)) return true;
  // Readable: the next pipelined request, or the end of the stream.
  char byte;
  return recv(socket_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

}  // namespace wgpt::serve
