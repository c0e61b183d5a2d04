#pragma once
// Whether a request's client is still there. cpp-httplib (Debian's 0.11) neither tells a handler
// that its client went away nor hands it the socket, so the watch finds the socket by the
// connection's addresses among the process's descriptors — it stays open, and so valid, until
// the handler returns — and asks the kernel whether the peer has closed it. A client that only
// shuts down its sending side (half-close) also counts as gone.

#include <string>

namespace wgpt::serve {

class ConnectionWatch {
 public:
  // The connection from remote_ip:remote_port to local_port. Never reports a close when the
  // socket cannot be found.
  ConnectionWatch(const std::string& remote_ip, int remote_port, int local_port);
  bool closed() const;

 private:
  int socket_ = -1;
};

}  // namespace wgpt::serve
