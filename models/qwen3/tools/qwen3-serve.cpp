//===- qwen3-serve.cpp - an OpenAI-compatible server for a Qwen3 model ----===//
//
// qwen3-serve --model DIR [flags]: loads the model once and serves the
// OpenAI API on loopback (docs/serving.md). SIGINT / SIGTERM stop taking
// requests, finish the ones in flight and exit 0. Bad flags or a model that
// does not load get one line on stderr and status 1.
//
//===----------------------------------------------------------------------===//

#include "qwen3/Config.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"
#include "qwen3/serve/HttpServer.h"
#include "qwen3/serve/Metrics.h"
#include "qwen3/serve/Scheduler.h"

#include "ToolSupport.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <pthread.h>
#include <string>
#include <thread>

#ifndef QWEN3_DEFAULT_KERNELS_DIR
#define QWEN3_DEFAULT_KERNELS_DIR ""
#endif

using namespace qwen3;
using tool::fail;
using tool::parseInt;
using tool::parseBytes;

namespace {

const char *kUsage =
    R"(usage: qwen3-serve --model DIR [flags]

Serves a Qwen3 checkpoint through the OpenAI API (POST /v1/chat/completions,
/v1/completions; GET /v1/models, /health, /metrics).

  --model DIR              config.json, generation_config.json, tokenizer.json,
                           model.safetensors (or shards + index)
  --host H                 address to listen on (default 127.0.0.1)
  --port N                 port (default 8000; 0: any free port, printed)
  --served-model-name S    the model id clients pass (default: DIR's name)
  --api-key KEY            require "Authorization: Bearer KEY" (default: the
                           QWEN3_API_KEY environment variable, else none)
  --device cuda|cuda:N|cpu where to run (default cuda)
  --tensor-parallel N      split the model over N devices (docs/parallel.md)
  --all-reduce auto|nccl|peer   a tensor-parallel decode step's all-reduce
                           (qwen3-run --help)
  --kernels DIR            the compiled kernel set (default: the build's)
  --weights stored|16bit|fp8   the linear layers' weights as the checkpoint
                           stores them (default), all 16-bit, or all FP8
                           (quantized at load): qwen3-run --help
  --fp8-gemm-weights auto|per-gemm|resident   FP8 projections' 16-bit
                           weights for the GEMMs of prompts and batched
                           steps: dequantized before each GEMM, or a copy
                           of each made at load (2 more bytes a weight of
                           device memory); auto (the default): the copies
                           where they take at most a quarter of the memory
                           free after the weights
  --max-seq-len N          the context: prompt and completion (default: the
                           model's, or what fits)
  --max-batch N            requests generating at once; the paged KV cache
                           holds --max-seq-len positions for each (default 16)
  --kv-cache-memory SIZE   the KV cache's size on each device (bytes, or
                           with KiB/MiB/GiB or KB/MB/GB): without
                           --max-seq-len, the longest context whose rows
                           fit it for the staging rows and each request;
                           with it, the pages it leaves, shared: requests
                           are admitted while their pages fit
                           (default: what fits)
  --prefill-chunk N        prompt tokens prefilled per step at most (a
                           long prompt in chunks over several steps), so
                           running requests wait for no more between two
                           tokens; 0: whole prompts (default 512)
  --prefill mixed|separate while requests generate, the next prompt's
                           chunk runs inside their decode step, in the same
                           GEMMs (mixed, the default, with --max-batch of
                           at least 2 and a --prefill-chunk), or in a
                           prefill of its own before the step (separate)
  --max-tokens N           the most tokens one request may generate
                           (default 4096)
  --max-queue N            requests waiting at most; more get 429 (default 64)
  --max-body-bytes N       request bodies at most (default 1048576)
  --connection-threads N   connections served at once (default: --max-queue
                           + 16, so a full queue answers 429 and /health
                           and /metrics stay reachable)
  --read-timeout S         seconds a client has to send a request (default 10)
  --help, --version
)";

struct Options {
  std::string model, name, device = "cuda", kernels = QWEN3_DEFAULT_KERNELS_DIR;
  serve::ServerOptions server;
  int64_t tensorParallel = 1, maxSeq = 0, maxTokens = 4096, maxQueue = 64, maxBatch = 16,
          prefillChunk = 512, kvCacheBytes = 0;
  bool mixedPrefill = true;
  EngineOptions::Weights weights = EngineOptions::Weights::Stored;
  EngineOptions::Fp8GemmWeights fp8GemmWeights = EngineOptions::Fp8GemmWeights::Auto;
  EngineOptions::AllReduce allReduce = EngineOptions::AllReduce::Auto;
};

Options parseArgs(int argc, char **argv) {
  Options o;
  o.server.connectionThreads = 0; // --max-queue + 16 unless given
  if (const char *k = std::getenv("QWEN3_API_KEY"))
    o.server.apiKey = k;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return qwen3::tool::flagValue(argc, argv, i); };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--version") {
      std::printf("qwen3-serve (tile) %s\n", TILE_VERSION_STRING);
      std::exit(0);
    } else if (a == "--model") {
      o.model = value();
    } else if (a == "--host") {
      o.server.host = value();
    } else if (a == "--port") {
      o.server.port = static_cast<int>(parseInt(a, value(), 0, 65535));
    } else if (a == "--served-model-name") {
      o.name = value();
      if (o.name.empty())
        fail("--served-model-name: must not be empty");
    } else if (a == "--api-key") {
      o.server.apiKey = value();
    } else if (a == "--device") {
      o.device = value();
    } else if (a == "--tensor-parallel") {
      o.tensorParallel = parseInt(a, value(), 1, 64);
    } else if (a == "--kernels") {
      o.kernels = value();
    } else if (a == "--weights") {
      o.weights = tool::parseWeights(a, value());
    } else if (a == "--fp8-gemm-weights") {
      o.fp8GemmWeights = tool::parseFp8GemmWeights(a, value());
    } else if (a == "--all-reduce") {
      o.allReduce = tool::parseAllReduce(a, value());
    } else if (a == "--max-seq-len") {
      o.maxSeq = parseInt(a, value(), 1, 1 << 24);
    } else if (a == "--max-batch") {
      o.maxBatch = parseInt(a, value(), 1, 1024);
    } else if (a == "--kv-cache-memory") {
      o.kvCacheBytes = parseBytes(a, value());
    } else if (a == "--prefill-chunk") {
      o.prefillChunk = parseInt(a, value(), 0, 1 << 24);
    } else if (a == "--prefill") {
      const std::string v = value();
      if (v != "mixed" && v != "separate")
        fail("--prefill: expected mixed or separate, got '" + v + "'");
      o.mixedPrefill = v == "mixed";
    } else if (a == "--max-tokens") {
      o.maxTokens = parseInt(a, value(), 1, 1 << 24);
    } else if (a == "--max-queue") {
      o.maxQueue = parseInt(a, value(), 1, 1 << 20);
    } else if (a == "--max-body-bytes") {
      o.server.maxBodyBytes = static_cast<size_t>(parseInt(a, value(), 1024, int64_t(1) << 30));
    } else if (a == "--connection-threads") {
      o.server.connectionThreads = static_cast<size_t>(parseInt(a, value(), 1, 4096));
    } else if (a == "--read-timeout") {
      o.server.readTimeoutSeconds = static_cast<int>(parseInt(a, value(), 1, 3600));
    } else {
      fail("unknown flag '" + a + "' (--help lists them)");
    }
  }
  if (o.model.empty())
    fail("--model DIR is required (--help lists the flags)");
  if (o.kernels.empty())
    fail("--kernels DIR is required (this build knows no kernel set)");
  if (o.server.connectionThreads == 0)
    o.server.connectionThreads = static_cast<size_t>(std::min<int64_t>(o.maxQueue + 16, 4096));
  else if (static_cast<int64_t>(o.server.connectionThreads) <= o.maxQueue + 1)
    fail("--connection-threads " + std::to_string(o.server.connectionThreads) +
         " must exceed --max-queue + 1 (" + std::to_string(o.maxQueue + 1) +
         "): each waiting or running request holds a connection thread");
  if (o.name.empty()) {
    std::string m = o.model;
    while (m.size() > 1 && m.back() == '/')
      m.pop_back();
    size_t slash = m.rfind('/');
    o.name = slash == std::string::npos ? m : m.substr(slash + 1);
  }
  return o;
}

} // namespace

int main(int argc, char **argv) {
  tool::name() = "qwen3-serve";
  Options o = parseArgs(argc, argv);

  // SIGINT and SIGTERM are taken by one thread (sigwait), blocked in every
  // other: the threads started below inherit the mask.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
  std::signal(SIGPIPE, SIG_IGN); // a client that hangs up is a failed write

  Tokenizer tok;
  tool::loadTokenizer(o.model, tok);
  EngineOptions eo;
  eo.device = o.device;
  eo.tensorParallel = o.tensorParallel;
  eo.kernelsDir = o.kernels;
  eo.weights = o.weights;
  eo.fp8GemmWeights = o.fp8GemmWeights;
  eo.allReduce = o.allReduce;
  eo.maxSeqLen = o.maxSeq;
  eo.maxBatch = o.maxBatch;
  eo.stepPromptTokens = o.mixedPrefill && o.maxBatch > 1 ? o.prefillChunk : 0;
  eo.kvCacheBytes = o.kvCacheBytes;
  std::unique_ptr<Engine> engine;
  if (Status st = Engine::create(o.model, eo, engine); !st)
    fail(st.message());

  serve::ModelInfo info;
  info.id = o.name;
  info.config = &engine->config();
  info.tokenizer = &tok;
  info.contextLength = engine->maxSeqLen();
  info.maxTokens = o.maxTokens;
  serve::Metrics metrics;
  serve::Scheduler scheduler(*engine, tok, engine->config(), static_cast<size_t>(o.maxQueue),
                             metrics, o.prefillChunk);
  serve::HttpServer server(o.server, info, scheduler, metrics);
  int port = 0;
  if (Status st = server.bind(port); !st) {
    scheduler.drain();
    fail(st.message());
  }

  std::atomic<bool> served{false};
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stopSignals, &sig);
    if (served) // the server stopped on its own
      return;
    std::fprintf(stderr, "qwen3-serve: %s: finishing the requests in flight\n",
                 sig == SIGINT ? "SIGINT" : "SIGTERM");
    server.beginDrain();
    scheduler.drain();
    // The streams of finished jobs are still being written out.
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (server.activeResponses() > 0 && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // Until the server is listening, stop() has nothing to stop yet.
    while (!served) {
      server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  std::fprintf(stderr,
               "qwen3-serve: serving %s at http://%s:%d/v1 on %s (context %lld, batch %lld)\n",
               o.name.c_str(), o.server.host.c_str(), port, engine->deviceName().c_str(),
               static_cast<long long>(engine->maxSeqLen()), static_cast<long long>(o.maxBatch));
  server.run();
  served = true;
  pthread_kill(stopper.native_handle(), SIGTERM); // wakes it if no signal came
  stopper.join();
  std::fprintf(stderr, "qwen3-serve: stopped\n");
  return 0;
}
