#include "tests/io/remote/scripted_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace feedrate::io::test_support {

ScriptedServer::ScriptedServer(Handler handler) : handler_(std::move(handler)) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::listen(listener_, 16) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("ScriptedServer: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { serve(); });
}

ScriptedServer::~ScriptedServer() {
  ::shutdown(listener_, SHUT_RDWR);  // ends the accept() the thread waits in
  thread_.join();
  ::close(listener_);
}

std::string ScriptedServer::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::vector<std::string> ScriptedServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void ScriptedServer::serve() {
  while (true) {
    const int client = ::accept(listener_, nullptr, nullptr);
    if (client < 0) return;
    std::string request;
    char buffer[4096];
    // The head, then as much body as its Content-Length says.
    auto complete = [&request] {
      const auto end = request.find("\r\n\r\n");
      if (end == std::string::npos) return false;
      const auto length = header_value(request.substr(0, end + 2), "Content-Length");
      return request.size() >= end + 4 + (length.empty() ? 0 : std::stoul(length));
    };
    while (!complete()) {
      const auto got = ::recv(client, buffer, sizeof(buffer), 0);
      if (got <= 0) break;
      request.append(buffer, static_cast<std::size_t>(got));
    }
    std::size_t index = 0;
    {
      std::lock_guard lock(mutex_);
      index = requests_.size();
      requests_.push_back(request);
    }
    const std::string response = handler_(request, index);
    std::size_t sent = 0;
    while (sent < response.size()) {
      const auto wrote =
          ::send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (wrote <= 0) break;
      sent += static_cast<std::size_t>(wrote);
    }
    ::close(client);
  }
}

unsigned closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("closed_port: cannot bind on 127.0.0.1");
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

std::string header_value(const std::string& request, const std::string& name) {
  std::string lower_request = request;
  std::string lower_name = name + ":";
  for (auto* text : {&lower_request, &lower_name}) {
    std::transform(text->begin(), text->end(), text->begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  }
  const auto at = lower_request.find("\r\n" + lower_name);
  if (at == std::string::npos) return {};
  const auto start = request.find_first_not_of(' ', at + 2 + lower_name.size());
  return request.substr(start, request.find("\r\n", start) - start);
}

std::pair<std::size_t, std::size_t> requested_range(const std::string& request) {
  const auto range = header_value(request, "Range");
  if (range.empty()) return {0, 0};
  const auto dash = range.find('-');
  return {std::stoul(range.substr(6, dash - 6)), std::stoul(range.substr(dash + 1))};
}

}  // namespace feedrate::io::test_support
