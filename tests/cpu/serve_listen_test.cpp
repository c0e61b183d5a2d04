// The server's listening socket: a burst of clients connecting at once all complete their
// handshakes before the server accepts any of them. cpp-httplib's own backlog of 5 dropped the
// handshakes past it, and the kernel retried each a second later (a TTFT p90 of a second at 64
// streams on the H200); Server::bind() raises it.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "test_support.h"
#include "wgpt/serve.h"

namespace wgpt::test {
namespace {

// How many of `count` non-blocking connects to 127.0.0.1:port complete within `wait_ms`.
size_t connections_completed(int port, size_t count, int wait_ms) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<pollfd> sockets;
  for (size_t i = 0; i < count; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) break;
    ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address));  // in progress
    sockets.push_back({fd, POLLOUT, 0});
  }
  // A handshake the listener dropped stays in progress (its retry comes after a second).
  ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
  ::poll(sockets.data(), sockets.size(), 0);
  size_t completed = 0;
  for (const pollfd& socket : sockets) {
    int error = -1;
    socklen_t length = sizeof(error);
    ::getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if ((socket.revents & POLLOUT) && error == 0) ++completed;
    ::close(socket.fd);
  }
  return completed;
}

TEST(ServeListen, ABurstOfConnectionsIsQueuedUntilAccepted) {
  const auto dir = hf_fixture("char-tiny");
  const model::Model model = model::Model::load(dir);
  const auto tokenizer = tokenizer::load_tokenizer(dir);
  serve::Server server(model, *tokenizer, {.port = 0, .parallel = 1});
  const int port = server.bind();  // listening, not accepting: run() is never called
  EXPECT_EQ(connections_completed(port, 64, 300), 64u);
}

}  // namespace
}  // namespace wgpt::test
