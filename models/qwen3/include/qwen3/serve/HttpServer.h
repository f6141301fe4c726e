//===- HttpServer.h - the OpenAI-compatible HTTP front end ------*- C++ -*-===//
//
// cpp-httplib serves the routes (POST /v1/chat/completions and
// /v1/completions, streamed as server-sent events or whole; GET /v1/models,
// /health, /metrics), checks the API key, and bounds what one client can
// take: the body size, read and idle timeouts, the connection threads, the
// queue behind them.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_HTTPSERVER_H
#define QWEN3_SERVE_HTTPSERVER_H

#include "qwen3/serve/Metrics.h"
#include "qwen3/serve/Protocol.h"
#include "qwen3/serve/Scheduler.h"

#include <atomic>
#include <memory>
#include <string>

namespace httplib {
class Server;
}

namespace qwen3::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000; ///< 0: any free port
  std::string apiKey; ///< empty: no key
  size_t maxBodyBytes = size_t(1) << 20;
  int readTimeoutSeconds = 10;  ///< a request's headers and body
  int idleTimeoutSeconds = 5;   ///< between requests on a kept-alive connection
  size_t connectionThreads = 80; ///< connections served at once
};

class HttpServer {
public:
  HttpServer(ServerOptions options, ModelInfo model, Scheduler &scheduler, Metrics &metrics);
  ~HttpServer();

  /// Binds the listening socket; `port` is the one bound.
  tile_runtime::Status bind(int &port);
  /// Serves until stop(); call after bind().
  void run();
  /// New generation requests get 503 from now on.
  void beginDrain() { draining_ = true; }
  /// Responses still being written (streams in flight).
  int activeResponses() const { return active_; }
  void stop();

private:
  void routes();

  ServerOptions options_;
  ModelInfo model_;
  Scheduler &scheduler_;
  Metrics &metrics_;
  std::unique_ptr<httplib::Server> server_;
  std::atomic<bool> draining_{false};
  std::atomic<int> active_{0};
  std::atomic<uint64_t> requestCounter_{0};
  const int64_t started_;
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_HTTPSERVER_H
