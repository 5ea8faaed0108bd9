// A tiny HTTP/1.1 server on 127.0.0.1 for the fetcher's and credential chain's unit tests: each
// connection gets one request, answered with whatever the test's handler returns (raw bytes: status
// line, headers, body, possibly cut short or contradicting the request), then closed. It plays the
// servers that misbehave in ways real ones are hard to make: ignoring Range, answering other bytes,
// a short body. Thread-safety: the handler runs on the server's thread; requests() may be called
// from the test's.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace feedrate::io::test_support {

class ScriptedServer {
 public:
  // `handler` gets the request (its head, and its body when it has a Content-Length) and the
  // number of requests before it.
  using Handler = std::function<std::string(const std::string& request, std::size_t index)>;
  explicit ScriptedServer(Handler handler);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url(const std::string& path) const;
  // The requests received so far (heads and bodies).
  std::vector<std::string> requests() const;

 private:
  void serve();

  Handler handler_;
  int listener_ = -1;
  unsigned port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

// The value of a request head's header (case-insensitive name), empty when absent.
std::string header_value(const std::string& request, const std::string& name);

// A port of 127.0.0.1 that nothing listens on (bound, then closed): connections are refused.
unsigned closed_port();

// "bytes=A-B" of a request as {A, B}; {0, 0} without a Range header.
std::pair<std::size_t, std::size_t> requested_range(const std::string& request);

}  // namespace feedrate::io::test_support
