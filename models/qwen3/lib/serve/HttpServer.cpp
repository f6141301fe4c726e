//===- HttpServer.cpp - the OpenAI-compatible HTTP front end --------------===//

#include "qwen3/serve/HttpServer.h"

#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <ctime>

namespace qwen3::serve {

using nlohmann::json;

namespace {

/// Compares every byte whatever the inputs, so the time taken does not tell
/// how much of a guessed key was right.
bool constantTimeEqual(const std::string &a, const std::string &b) {
  unsigned char diff = a.size() != b.size();
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    diff |= static_cast<unsigned char>((i < a.size() ? a[i] : 0) ^ (i < b.size() ? b[i] : 0));
  return diff == 0;
}

/// JSON text; strings that are not valid UTF-8 (a percent-decoded path, a
/// model name from the command line) get U+FFFD instead of an exception.
std::string text(const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void sendError(httplib::Response &res, const ApiError &e) {
  res.status = e.status;
  res.set_content(text(e.body()), "application/json");
}

ApiError error(int status, std::string message, std::string type) {
  ApiError e;
  e.status = status;
  e.message = std::move(message);
  e.type = std::move(type);
  return e;
}

/// The route label of the metrics: known routes, else "other" (a client
/// cannot grow the metrics with made-up paths).
std::string routeLabel(const std::string &path) {
  for (const char *r : {"/v1/chat/completions", "/v1/completions", "/v1/models", "/health",
                        "/metrics"})
    if (path == r)
      return r;
  return "other";
}

/// The job's next event, for a response being written to `sink`; false
/// (and the job cancelled) once the client has gone.
bool nextEvent(Job &job, httplib::DataSink &sink, Job::Event &ev) {
  do {
    if (!sink.is_writable()) {
      job.cancel();
      return false;
    }
  } while (!job.next(ev, std::chrono::milliseconds(200)));
  return true;
}

bool sendEvent(httplib::DataSink &sink, const json &j) {
  std::string s = "data: " + text(j) + "\n\n";
  return sink.write(s.data(), s.size());
}

} // namespace

HttpServer::HttpServer(ServerOptions options, ModelInfo model, Scheduler &scheduler,
                       Metrics &metrics)
    : options_(std::move(options)), model_(std::move(model)), scheduler_(scheduler),
      metrics_(metrics), server_(std::make_unique<httplib::Server>()),
      started_(static_cast<int64_t>(std::time(nullptr))) {
  httplib::Server &s = *server_;
  const size_t threads = options_.connectionThreads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options_.maxBodyBytes);
  s.set_read_timeout(options_.readTimeoutSeconds, 0);
  s.set_write_timeout(options_.readTimeoutSeconds, 0);
  s.set_keep_alive_timeout(options_.idleTimeoutSeconds);
  s.set_keep_alive_max_count(100);
  routes();
}

HttpServer::~HttpServer() = default;

/// cpp-httplib listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed
/// in the OS package's shared library): a burst of clients connecting at
/// once overflows it, and some see their connection reset. listen() again
/// on the bound socket raises the backlog (Linux keeps the socket and its
/// queue). The socket is the one listening on `port`.
static void widenListenBacklog(int port) {
  rlimit lim{};
  const int most = getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < 65536
                       ? static_cast<int>(lim.rlim_cur)
                       : 65536;
  for (int fd = 0; fd < most; ++fd) {
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || !listening)
      continue;
    sockaddr_storage addr{};
    socklen_t alen = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &alen) != 0)
      continue;
    int bound = -1;
    if (addr.ss_family == AF_INET)
      bound = ntohs(reinterpret_cast<sockaddr_in *>(&addr)->sin_port);
    else if (addr.ss_family == AF_INET6)
      bound = ntohs(reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port);
    if (bound == port)
      ::listen(fd, SOMAXCONN);
  }
}

tile_runtime::Status HttpServer::bind(int &port) {
  if (options_.port == 0) {
    port = server_->bind_to_any_port(options_.host);
  } else {
    port = server_->bind_to_port(options_.host, options_.port) ? options_.port : -1;
  }
  if (port < 0)
    return tile_runtime::Status::error("cannot listen on " + options_.host + ":" +
                                       std::to_string(options_.port) +
                                       " (in use, or not an address of this machine)");
  widenListenBacklog(port);
  return tile_runtime::Status::ok();
}

void HttpServer::run() { server_->listen_after_bind(); }
void HttpServer::stop() { server_->stop(); }

void HttpServer::routes() {
  httplib::Server &s = *server_;
  using httplib::Request;
  using httplib::Response;
  using HR = httplib::Server::HandlerResponse;

  s.set_pre_routing_handler([this](const Request &req, Response &res) {
    if (options_.apiKey.empty() || req.path == "/health")
      return HR::Unhandled;
    const std::string auth = req.get_header_value("Authorization");
    const std::string prefix = "Bearer ";
    if (auth.compare(0, prefix.size(), prefix) == 0 &&
        constantTimeEqual(auth.substr(prefix.size()), options_.apiKey))
      return HR::Unhandled;
    sendError(res, error(401, "a valid API key is required (Authorization: Bearer KEY)",
                         "authentication_error"));
    return HR::Handled;
  });
  // Errors httplib itself answers (unknown route, a body over the limit, a
  // malformed request line) get the API's error object too.
  s.set_error_handler(httplib::Server::HandlerWithResponse([this](const Request &req,
                                                                    Response &res) {
    if (!res.body.empty())
      return HR::Unhandled;
    std::string message;
    switch (res.status) {
    case 404:
      message = "no route " + req.method + " " + req.path;
      break;
    case 413:
      message = "the request body exceeds " + std::to_string(options_.maxBodyBytes) + " bytes";
      break;
    default:
      message = "the request could not be served (HTTP " + std::to_string(res.status) + ")";
    }
    sendError(res, error(res.status, message,
                         res.status == 404 ? "not_found_error" : "invalid_request_error"));
    return HR::Handled;
  }));
  s.set_exception_handler([](const Request &, Response &res, std::exception_ptr) {
    sendError(res, error(500, "internal error", "server_error"));
  });
  s.set_logger([this](const Request &req, const Response &res) {
    metrics_.request(routeLabel(req.path), res.status);
  });

  s.Get("/health", [this](const Request &, Response &res) {
    res.status = draining_ ? 503 : 200;
    res.set_content(text(json{{"status", draining_ ? "draining" : "ok"}}), "application/json");
  });
  s.Get("/metrics", [this](const Request &, Response &res) {
    res.set_content(metrics_.prometheus(), "text/plain; version=0.0.4");
  });
  s.Get("/v1/models", [this](const Request &, Response &res) {
    json m = {{"id", model_.id},
              {"object", "model"},
              {"created", started_},
              {"owned_by", "tile"},
              {"max_model_len", model_.contextLength}};
    res.set_content(text(json{{"object", "list"}, {"data", json::array({m})}}),
                    "application/json");
  });

  auto generate = [this](Endpoint endpoint) {
    return [this, endpoint](const Request &req, Response &res) {
      if (draining_)
        return sendError(res, error(503, "the server is shutting down", "server_error"));
      const uint64_t n = requestCounter_++;
      GenerationRequest gr;
      ApiError e;
      // Requests without a seed get distinct ones.
      const uint64_t seed = (uint64_t(started_) << 20) ^ (n * 0x9E3779B97F4A7C15ull);
      if (!parseRequest(endpoint, req.body, model_, seed, gr, e))
        return sendError(res, e);
      auto job = std::make_shared<Job>(std::move(gr));
      switch (scheduler_.submit(job)) {
      case Scheduler::Admission::QueueFull:
        return sendError(res, error(429, "the server's queue is full; retry later",
                                    "rate_limit_error"));
      case Scheduler::Admission::Draining:
        return sendError(res, error(503, "the server is shutting down", "server_error"));
      case Scheduler::Admission::Accepted:
        break;
      }
      const std::string id = (endpoint == Endpoint::Chat ? "chatcmpl-" : "cmpl-") +
                             std::to_string(started_) + "-" + std::to_string(n);
      const int64_t created = static_cast<int64_t>(std::time(nullptr));
      const std::string modelId = model_.id;

      if (!job->request.stream) {
        // The whole response at the end, written by a content provider so
        // that a client that has gone is noticed while it waits (its job is
        // cancelled, the engine freed for the others).
        ++active_;
        auto content = std::make_shared<std::string>(), reasoning = std::make_shared<std::string>();
        auto lps = std::make_shared<std::vector<TokenLogprob>>();
        const Tokenizer *tokenizer = model_.tokenizer;
        res.set_chunked_content_provider(
            "application/json",
            [job, endpoint, id, created, modelId, content, reasoning, lps,
             tokenizer](size_t, httplib::DataSink &sink) {
              Job::Event ev;
              if (!nextEvent(*job, sink, ev))
                return false;
              *content += ev.delta.content;
              *reasoning += ev.delta.reasoning;
              lps->insert(lps->end(), ev.logprobs.begin(), ev.logprobs.end());
              if (!ev.finished)
                return true;
              std::vector<ToolCall> calls;
              if (job->request.parseToolCalls) {
                ToolCallStream::Result r = ToolCallStream::split(*content);
                calls = std::move(r.calls);
                *content = std::move(r.content);
              }
              json logprobs = nullptr;
              if (job->request.topLogprobs >= 0)
                logprobs = endpoint == Endpoint::Chat
                               ? chatLogprobs(*lps, *tokenizer)
                               : completionLogprobs(*lps, *tokenizer, 0);
              const std::string body =
                  ev.error.empty()
                      ? text(completionResponse(endpoint, id, modelId, created, *content,
                                                *reasoning, ev.finishReason, ev.usage, calls,
                                                logprobs))
                      : text(error(500, "generation failed: " + ev.error, "server_error").body());
              if (!sink.write(body.data(), body.size()))
                return false;
              sink.done();
              return true;
            },
            [this, job](bool success) {
              if (!success)
                job->cancel();
              --active_;
            });
        return;
      }

      ++active_;
      res.set_header("Cache-Control", "no-cache");
      res.set_chunked_content_provider(
          "text/event-stream",
          [job, endpoint, id, created, modelId, first = true,
           tools = std::make_shared<ToolCallStream>(), tokenizer = model_.tokenizer,
           offset = int64_t(0)](size_t, httplib::DataSink &sink) mutable {
            Job::Event ev;
            if (!nextEvent(*job, sink, ev))
              return false;
            // The logprobs of the tokens since the last event ride on this
            // event's delta, or on the finish.
            json logprobs = nullptr;
            if (job->request.topLogprobs >= 0 && !ev.logprobs.empty()) {
              logprobs = endpoint == Endpoint::Chat
                             ? chatLogprobs(ev.logprobs, *tokenizer)
                             : completionLogprobs(ev.logprobs, *tokenizer, offset);
              for (const TokenLogprob &lp : ev.logprobs)
                offset += static_cast<int64_t>(tokenizer->tokenBytes(lp.token).size());
            }
            // With tools, content that may be a call is held until the end.
            std::vector<ToolCall> calls;
            if (job->request.parseToolCalls) {
              ev.delta.content = tools->feed(ev.delta.content);
              if (ev.finished) {
                ToolCallStream::Result r = tools->finish();
                calls = std::move(r.calls);
                ev.delta.content += r.content;
              }
            }
            bool ok = true;
            if (first && endpoint == Endpoint::Chat) {
              const std::string empty;
              ok = sendEvent(sink, streamChunk(endpoint, id, modelId, created, &empty, nullptr,
                                               true, nullptr));
            }
            first = false;
            if (ok && !ev.delta.empty()) {
              ok = sendEvent(sink, streamChunk(endpoint, id, modelId, created,
                                               ev.delta.content.empty() ? nullptr
                                                                        : &ev.delta.content,
                                               ev.delta.reasoning.empty() ? nullptr
                                                                          : &ev.delta.reasoning,
                                               false, nullptr, nullptr, logprobs));
              logprobs = nullptr;
            }
            if (ok && ev.finished) {
              if (!ev.error.empty()) {
                ok = sendEvent(sink, error(500, "generation failed: " + ev.error, "server_error")
                                         .body());
              } else {
                if (!calls.empty())
                  ok = sendEvent(sink, streamChunk(endpoint, id, modelId, created, nullptr,
                                                   nullptr, false, nullptr, &calls));
                const std::string reason = calls.empty() ? ev.finishReason : "tool_calls";
                if (ok)
                  ok = sendEvent(sink, streamChunk(endpoint, id, modelId, created, nullptr,
                                                   nullptr, false, &reason, nullptr, logprobs));
                if (ok && job->request.includeUsage)
                  ok = sendEvent(sink, usageChunk(endpoint, id, modelId, created, ev.usage));
              }
              static const std::string done = "data: [DONE]\n\n";
              if (ok && (ok = sink.write(done.data(), done.size())))
                sink.done();
            }
            if (!ok)
              job->cancel();
            return ok;
          },
          [this, job](bool success) {
            if (!success)
              job->cancel();
            --active_;
          });
    };
  };
  s.Post("/v1/chat/completions", generate(Endpoint::Chat));
  s.Post("/v1/completions", generate(Endpoint::Completion));
}

} // namespace qwen3::serve
