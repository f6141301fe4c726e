//===- qwen3-run.cpp - generate text with a Qwen3 checkpoint --------------===//
//
// qwen3-run --model DIR --prompt "Hello" [flags]: tokenizes (chat template
// unless --raw-prompt), prefills, then replays the decode step per token,
// streaming text as it is produced. `--help` lists the flags. Bad input
// gets one line on stderr naming the file, tensor or flag, and status 1.
//
//===----------------------------------------------------------------------===//

#include "qwen3/ChatSession.h"
#include "qwen3/ChatTemplate.h"
#include "qwen3/Config.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"
#include "qwen3/Unicode.h"

#include "ToolSupport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#ifndef QWEN3_DEFAULT_KERNELS_DIR
#define QWEN3_DEFAULT_KERNELS_DIR ""
#endif

using namespace qwen3;
using tool::fail;
using tool::parseInt;
using tool::parseReal;

namespace {

const char *kUsage =
    R"(usage: qwen3-run --model DIR [--prompt TEXT | --prompt-file F | --messages F] [flags]

Generates text with a Hugging Face Qwen3 checkpoint on tile kernels; with no
prompt, opens an interactive chat (/clear, /think, /exit).

  --model DIR            config.json, generation_config.json, tokenizer.json,
                         model.safetensors (or shards + index)
  --prompt TEXT          the user message
  --prompt-file F        the user message, read from F
  --system TEXT          a system message before it
  --messages F           a JSON list of {"role", "content"} (the whole chat)
  --prompt-ids F         the prompt as token ids: a JSON list in F (no template)
  --raw-prompt           tokenize the prompt as is (no chat template)
  --think                leave thinking on (default: the empty think block)
  --max-new-tokens N     tokens to generate (default 128)
  --max-seq-len N        KV-cache length (default: the model's, or what fits in
                         the memory left after the weights)
  --sample               sample on the device instead of greedy
                         (generation_config.json defaults)
  --temperature T        > 0 (implies --sample)
  --top-k K              >= 0, 0 = off (implies --sample)
  --top-p P              in (0, 1] (implies --sample)
  --seed S               the sampler's seed (default 0): same seed, same text
  --ignore-eos           do not stop at the end-of-sequence tokens
  --device cuda|cuda:N|cpu   where to run (default cuda)
  --tensor-parallel N    split the model over N devices (GPUs from --device's
                         on, through NCCL; default 1): docs/parallel.md
  --all-reduce auto|nccl|peer   how a tensor-parallel decode step sums its
                         rows: one-shot through peer memory where the GPUs
                         reach each other's (auto, the default), NCCL, or
                         peer (an error where they cannot)
  --kernels DIR          the compiled kernel set (default: the build's)
  --weights stored|16bit|fp8   how the linear layers' weights are held:
                         as the checkpoint stores them (default), all in
                         16 bits (FP8 ones dequantized at load), or all in
                         FP8 (16-bit ones quantized at load, one scale per
                         128 x 128 block, as Qwen's FP8 checkpoints)
  --tokenize-only        print the prompt's token ids as a JSON array, exit
  --json                 one JSON object on stdout instead of streamed text
  --dump-logits F        write each step's logits (f32, vocab per step) to F
  --help                 this text (--help-all: also the measurement and
                         tuning flags)
  --version              the version
)";

// Flags for benchmarks and kernel tuning, shown by --help-all.
const char *kUsageMeasurement = R"(
Measurement and tuning:
  --repeat N             generate N times from the same prompt (each a fresh
                         prefill); --json lists every run (benchmarks)
  --warmup N             first generate N tokens once, unreported (benchmarks;
                         launch_to_first_token_ms then includes it)
  --profile              per-kernel time of one decode step and of the prefill
  --no-graph             launch the decode step's kernels one by one
  --leave-out P,...      measurement only (the output is wrong): leave out
                         the launches of kernels whose names start with a P,
                         to see what they cost inside the decode graph
  --no-pdl               no programmatic dependent launch (each kernel
                         starts only after the previous one ends)
  --attention-splits N   the decode attention's KV split count, one the
                         kernel set has (default: per step, among the S
                         whose grid, heads x S or KV heads x S grouped,
                         fits --attention-programs: the smallest whose
                         shares get at most --attention-keys-per-share
                         keys, or for the grouped kernel the largest whose
                         shares get at least that many)
  --attention-keys-per-share N   (default 32)
  --attention-programs N         (default 0: a wave, 4 per SM of the GPU, 3
                                 for the grouped kernel)
  --attention-grouped-from N     position from which decode runs the grouped
                                 attention kernel (default 2048; 0: always)
)";

struct Options {
  std::string model, prompt, promptFile, system, messages, device = "cuda";
  int64_t tensorParallel = 1;
  std::string kernels = QWEN3_DEFAULT_KERNELS_DIR, dumpLogits, promptIds;
  bool chat = false; ///< no prompt given: the interactive chat
  bool havePrompt = false, rawPrompt = false, think = false, sample = false;
  bool ignoreEos = false, tokenizeOnly = false, json = false, profile = false;
  bool noGraph = false, noPdl = false;
  std::vector<std::string> leaveOut;
  int64_t maxNew = 128, maxSeq = 0, topK = -1, repeat = 1, warmup = 0;
  EngineOptions::Weights weights = EngineOptions::Weights::Stored;
  EngineOptions::AllReduce allReduce = EngineOptions::AllReduce::Auto;
  int64_t attentionSplits = 0, attentionKeysPerShare = 32, attentionPrograms = 0;
  int64_t attentionGroupedFrom = qwen3::EngineOptions().attentionGroupedFrom;
  double temperature = -1, topP = -1;
  uint64_t seed = 0;
};

Options parseArgs(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&] { return qwen3::tool::flagValue(argc, argv, i); };
    if (a == "--help" || a == "-h" || a == "--help-all") {
      std::fputs(kUsage, stdout);
      if (a == "--help-all")
        std::fputs(kUsageMeasurement, stdout);
      std::exit(0);
    } else if (a == "--version") {
      std::printf("qwen3-run (tile) %s\n", TILE_VERSION_STRING);
      std::exit(0);
    } else if (a == "--model") {
      o.model = value();
    } else if (a == "--prompt") {
      o.prompt = value();
      o.havePrompt = true;
    } else if (a == "--prompt-file") {
      o.promptFile = value();
    } else if (a == "--prompt-ids") {
      o.promptIds = value();
    } else if (a == "--repeat") {
      o.repeat = parseInt(a, value(), 1, 1000);
    } else if (a == "--warmup") {
      o.warmup = parseInt(a, value(), 0, 1 << 24);
    } else if (a == "--system") {
      o.system = value();
    } else if (a == "--messages") {
      o.messages = value();
    } else if (a == "--raw-prompt") {
      o.rawPrompt = true;
    } else if (a == "--think") {
      o.think = true;
    } else if (a == "--max-new-tokens") {
      o.maxNew = parseInt(a, value(), 0, 1 << 24);
    } else if (a == "--max-seq-len") {
      o.maxSeq = parseInt(a, value(), 1, 1 << 24);
    } else if (a == "--weights") {
      o.weights = tool::parseWeights(a, value());
    } else if (a == "--all-reduce") {
      o.allReduce = tool::parseAllReduce(a, value());
    } else if (a == "--sample") {
      o.sample = true;
    } else if (a == "--temperature") {
      o.temperature = parseReal(a, value());
      if (!(o.temperature > 0))
        fail("--temperature: must be > 0, got " + std::string(argv[i]));
      o.sample = true;
    } else if (a == "--top-k") {
      o.topK = parseInt(a, value(), 0, 1 << 24);
      o.sample = true;
    } else if (a == "--top-p") {
      o.topP = parseReal(a, value());
      if (!(o.topP > 0 && o.topP <= 1))
        fail("--top-p: must be in (0, 1], got " + std::string(argv[i]));
      o.sample = true;
    } else if (a == "--seed") {
      o.seed = static_cast<uint64_t>(parseInt(a, value(), 0, INT64_MAX));
    } else if (a == "--ignore-eos") {
      o.ignoreEos = true;
    } else if (a == "--device") {
      o.device = value();
    } else if (a == "--tensor-parallel") {
      o.tensorParallel = parseInt(a, value(), 1, 64);
    } else if (a == "--kernels") {
      o.kernels = value();
    } else if (a == "--tokenize-only") {
      o.tokenizeOnly = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--dump-logits") {
      o.dumpLogits = value();
    } else if (a == "--profile") {
      o.profile = true;
    } else if (a == "--no-graph") {
      o.noGraph = true;
    } else if (a == "--leave-out") {
      std::string list = value();
      for (size_t i = 0; i <= list.size();) {
        size_t j = std::min(list.find(',', i), list.size());
        if (j == i)
          fail("--leave-out: an empty kernel name prefix in '" + list + "'");
        o.leaveOut.push_back(list.substr(i, j - i));
        i = j + 1;
      }
    } else if (a == "--no-pdl") {
      o.noPdl = true;
    } else if (a == "--attention-splits") {
      o.attentionSplits = parseInt(a, value(), 1, 1 << 16);
    } else if (a == "--attention-keys-per-share") {
      o.attentionKeysPerShare = parseInt(a, value(), 1, 1 << 24);
    } else if (a == "--attention-grouped-from") {
      o.attentionGroupedFrom = parseInt(a, value(), 0, int64_t(1) << 40);
    } else if (a == "--attention-programs") {
      o.attentionPrograms = parseInt(a, value(), 0, 1 << 24);
    } else {
      fail("unknown flag '" + a + "' (see --help)");
    }
  }
  if (o.model.empty())
    fail("--model DIR is required (see --help)");
  int sources = o.havePrompt + !o.promptFile.empty() + !o.messages.empty() +
                !o.promptIds.empty();
  if (sources > 1)
    fail("give one of --prompt, --prompt-file, --messages, --prompt-ids (none: a chat)");
  o.chat = sources == 0;
  if (o.chat && (o.json || o.rawPrompt || o.tokenizeOnly || o.profile || o.repeat != 1 ||
                 o.warmup > 0 || !o.dumpLogits.empty()))
    fail("the interactive chat (no --prompt) takes no --json, --raw-prompt, --tokenize-only, "
         "--profile, --repeat, --warmup or --dump-logits");
  if (!o.promptIds.empty() && (o.rawPrompt || !o.system.empty() || o.think))
    fail("--prompt-ids are the whole prompt: no --raw-prompt, --system or --think with it");
  if (!o.messages.empty() && (o.rawPrompt || !o.system.empty()))
    fail("--messages holds the whole chat: no --raw-prompt or --system with it");
  return o;
}

} // namespace

int main(int argc, char **argv) {
  tool::name() = "qwen3-run";
  const auto tStart = std::chrono::steady_clock::now();
  Options o = parseArgs(argc, argv);

  // Tokenizer and prompt first: they need no device.
  auto t0 = std::chrono::steady_clock::now();
  Tokenizer tok;
  tool::loadTokenizer(o.model, tok);
  double tokLoadMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - t0).count();
  std::string rendered;
  std::vector<int32_t> ids;
  if (!o.chat) {
    std::string text;
    if (!o.promptFile.empty()) {
      if (Status st = readFile(o.promptFile, text); !st)
        fail("--prompt-file: " + st.message());
    } else {
      text = o.prompt;
    }
    if (!o.promptIds.empty()) {
      std::string json;
      if (Status st = readFile(o.promptIds, json); !st)
        fail("--prompt-ids: " + st.message());
      nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
      if (!j.is_array() || j.empty())
        fail("--prompt-ids: " + o.promptIds + " is not a non-empty JSON list of token ids");
      for (const auto &v : j) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 ||
            v.get<int64_t>() >= tok.vocabSize())
          fail("--prompt-ids: " + o.promptIds + ": entry " + std::to_string(ids.size()) +
               " is not a token id in [0, " + std::to_string(tok.vocabSize()) + ")");
        ids.push_back(static_cast<int32_t>(v.get<int64_t>()));
      }
    } else if (!o.messages.empty()) {
      std::string json;
      if (Status st = readFile(o.messages, json); !st)
        fail("--messages: " + st.message());
      std::vector<ChatMessage> msgs;
      if (Status st = parseMessages(json, o.messages, msgs); !st)
        fail(st.message());
      rendered = renderChat(msgs, true, o.think);
    } else {
      if (text.empty())
        fail("the prompt is empty");
      if (o.rawPrompt) {
        rendered = text;
      } else {
        std::vector<ChatMessage> msgs;
        if (!o.system.empty())
          msgs.push_back({"system", o.system, std::nullopt, {}});
        msgs.push_back({"user", text, std::nullopt, {}});
        rendered = renderChat(msgs, true, o.think);
      }
    }
    if (o.promptIds.empty())
      if (Status st = tok.encode(rendered, ids); !st)
        fail("the prompt: " + st.message());
    if (ids.empty())
      fail("the prompt is empty");
    if (o.tokenizeOnly) {
      if (o.json)
        std::cout << nlohmann::json({{"ids", ids}, {"tokenizer_load_ms", tokLoadMs}})
                  << "\n";
      else
        std::cout << nlohmann::json(ids).dump() << "\n";
      return 0;
    }
  }
  if (o.maxSeq > 0 && static_cast<int64_t>(ids.size()) > o.maxSeq)
    fail("the prompt has " + std::to_string(ids.size()) +
         " tokens, more than --max-seq-len " + std::to_string(o.maxSeq));
  if (o.kernels.empty())
    fail("--kernels DIR is required (this build knows no kernel set)");

  EngineOptions eo;
  eo.device = o.device;
  eo.tensorParallel = o.tensorParallel;
  eo.kernelsDir = o.kernels;
  eo.weights = o.weights;
  eo.allReduce = o.allReduce;
  eo.useGraph = !o.noGraph;
  eo.programmaticLaunch = !o.noPdl;
  eo.attentionSplits = o.attentionSplits;
  eo.attentionKeysPerShare = o.attentionKeysPerShare;
  eo.attentionPrograms = o.attentionPrograms;
  eo.attentionGroupedFrom = o.attentionGroupedFrom;
  eo.leaveOut = o.leaveOut;
  eo.maxSeqLen = o.maxSeq; // 0: the model's
  // Loading a large checkpoint takes a while: on a terminal (and not with
  // --json) a progress line counts the layers.
  const bool showProgress = !o.json && isatty(2);
  int lastPercent = -1;
  if (showProgress)
    eo.onLoadProgress = [&](int64_t done, int64_t total) {
      int percent = static_cast<int>(100 * done / total);
      if (percent == lastPercent)
        return;
      lastPercent = percent;
      std::fprintf(stderr, "\rqwen3-run: loading %s: %3d%%", o.model.c_str(), percent);
      std::fflush(stderr);
    };
  std::unique_ptr<Engine> engine;
  auto tLoad = std::chrono::steady_clock::now();
  Status created = Engine::create(o.model, eo, engine);
  if (showProgress && lastPercent >= 0)
    std::fputs("\r\033[K", stderr); // the progress line is cleared
  if (!created)
    fail(created.message());
  double loadMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - tLoad).count();
  const ModelConfig &cfg = engine->config();
  if (o.sample) {
    if (o.temperature < 0)
      o.temperature = cfg.temperature > 0 ? cfg.temperature : 1.0;
    if (o.topK < 0)
      o.topK = cfg.topK;
    if (o.topP < 0)
      o.topP = cfg.topP > 0 && cfg.topP <= 1 ? cfg.topP : 1.0;
    Sampling sp;
    sp.enabled = true;
    sp.temperature = o.temperature;
    sp.topK = o.topK;
    sp.topP = o.topP;
    sp.seed = o.seed;
    if (Status st = engine->setSampling(sp); !st)
      fail(st.message());
  }
  if (o.chat) {
    ChatOptions co;
    co.system = o.system;
    co.thinking = o.think;
    co.maxNewTokens = o.maxNew;
    co.ignoreEos = o.ignoreEos;
    co.prompt = isatty(0) && isatty(1);
    if (Status st = runChat(*engine, tok, co, stdin, stdout, stderr); !st)
      fail(st.message());
    return 0;
  }
  // A prompt that fills the KV cache leaves nothing to generate: an error,
  // not a run that prints nothing.
  if (o.maxNew > 0 && static_cast<int64_t>(ids.size()) >= engine->maxSeqLen())
    fail("the prompt has " + std::to_string(ids.size()) + " tokens and the KV cache holds " +
         std::to_string(engine->maxSeqLen()) + " positions (--max-seq-len; the model's " +
         "max_position_embeddings is " + std::to_string(cfg.maxPositions) +
         "), leaving none to generate");
  if (static_cast<int64_t>(ids.size()) + o.maxNew > engine->maxSeqLen())
    o.maxNew = engine->maxSeqLen() - static_cast<int64_t>(ids.size());

  std::FILE *dump = nullptr;
  if (!o.dumpLogits.empty() && !(dump = std::fopen(o.dumpLogits.c_str(), "wb")))
    fail("--dump-logits: cannot write " + o.dumpLogits);
  std::vector<float> logits;
  // The engine picks each token on the device; logits are read back only
  // for --dump-logits.
  // A failed write (a full disk, /dev/full) is an error that names the
  // file, and a regular file left half written is removed.
  auto dumpFailed = [&] {
    const std::string why = errno ? std::strerror(errno) : "write error";
    std::fclose(dump);
    struct stat sb;
    if (::stat(o.dumpLogits.c_str(), &sb) == 0 && S_ISREG(sb.st_mode))
      std::remove(o.dumpLogits.c_str());
    fail("--dump-logits: cannot write " + o.dumpLogits + ": " + why);
  };
  auto dumpLogits = [&] {
    if (!dump)
      return;
    if (Status st = engine->lastLogits(logits); !st)
      fail(st.message());
    errno = 0;
    if (std::fwrite(logits.data(), 4, logits.size(), dump) != logits.size())
      dumpFailed();
  };
  auto isEos = [&](int32_t t) { return !o.ignoreEos && cfg.isEndOfSequence(t); };

  std::vector<int32_t> out;
  Utf8Stream stream;
  std::string generated;
  auto emit = [&](int32_t t) {
    std::string piece = stream.feed(tok.tokenBytes(t));
    generated += piece;
    if (!o.json && !piece.empty()) {
      std::fwrite(piece.data(), 1, piece.size(), stdout);
      std::fflush(stdout);
    }
  };

  // One generation; the first is streamed and dumped, --repeat runs the
  // same request again (the same tokens: greedy, or the same seed).
  struct RunTimes {
    double prefillMs = 0, decodeMs = 0;
    int64_t generated = 0;
  };
  std::vector<RunTimes> runs;
  double firstTokenMs = 0; // from process start, first run
  if (o.warmup > 0 && o.maxNew > 0) {
    // Graph capture, first-touch and clock ramp happen here, not in a run.
    int32_t t = -1;
    if (Status st = engine->prefill(ids, t); !st)
      fail(st.message());
    int64_t steps = std::min(o.warmup, engine->maxSeqLen() - static_cast<int64_t>(ids.size()));
    for (int64_t i = 1; i < steps; ++i)
      if (Status st = engine->decode(t, t); !st)
        fail(st.message());
  }
  for (int64_t r = 0; r < o.repeat && o.maxNew > 0; ++r) {
    const bool first = r == 0;
    std::vector<int32_t> gen;
    RunTimes rt;
    int32_t next = -1;
    auto tp = std::chrono::steady_clock::now();
    if (Status st = engine->prefill(ids, next); !st)
      fail(st.message());
    auto tf = std::chrono::steady_clock::now();
    rt.prefillMs = std::chrono::duration<double, std::milli>(tf - tp).count();
    if (first) {
      firstTokenMs = std::chrono::duration<double, std::milli>(tf - tStart).count();
      dumpLogits();
    }
    gen.push_back(next);
    bool stop = isEos(next);
    if (!stop && first)
      emit(next);
    auto td = std::chrono::steady_clock::now();
    while (!stop && static_cast<int64_t>(gen.size()) < o.maxNew) {
      int32_t n;
      if (Status st = engine->decode(gen.back(), n); !st)
        fail(st.message());
      if (first)
        dumpLogits();
      gen.push_back(n);
      if ((stop = isEos(n)))
        break;
      if (first)
        emit(n);
    }
    rt.decodeMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - td).count();
    rt.generated = static_cast<int64_t>(gen.size());
    runs.push_back(rt);
    if (first)
      out = std::move(gen);
  }
  const double prefillMs = runs.empty() ? 0 : runs[0].prefillMs;
  const double decodeMs = runs.empty() ? 0 : runs[0].decodeMs;
  std::string tail = stream.finish();
  generated += tail;
  if (dump) {
    errno = 0;
    if (std::fflush(dump) != 0 || std::ferror(dump))
      dumpFailed();
    if (std::fclose(dump) != 0) {
      dump = nullptr;
      fail("--dump-logits: cannot write " + o.dumpLogits + ": " + std::strerror(errno));
    }
  }
  int64_t decoded = out.size() > 1 ? static_cast<int64_t>(out.size()) - 1 : 0;
  double tokS = decodeMs > 0 ? decoded * 1000.0 / decodeMs : 0;

  std::vector<KernelTime> prof, prefillProf;
  double copyBps = 0;
  if (o.profile)
    if (Status st = engine->profileDecode(prof); !st ||
        !(st = engine->copyBandwidth(copyBps)) ||
        !(st = engine->profilePrefill(ids, prefillProf)))
      fail(st.message());

  if (o.json) {
    nlohmann::json j = {{"prompt_ids", ids},
                        {"generated_ids", out},
                        {"text", generated},
                        {"prompt_tokens", ids.size()},
                        {"generated_tokens", out.size()},
                        {"prefill_ms", prefillMs},
                        {"decode_tok_s", tokS},
                        {"load_ms", loadMs},
                        {"weights_ms", engine->weightsLoadMs()},
                        {"launch_to_first_token_ms", firstTokenMs},
                        {"tokenizer_load_ms", tokLoadMs},
                        {"device", engine->deviceName()}};
    // Per run: time to first token (the prefill, including the first
    // pick), decode-phase tok/s, and request tok/s (all generated tokens
    // over the whole request).
    nlohmann::json rs = nlohmann::json::array();
    for (const RunTimes &rt : runs) {
      int64_t dec = rt.generated > 1 ? rt.generated - 1 : 0;
      rs.push_back({{"prefill_ms", rt.prefillMs},
                    {"decode_ms", rt.decodeMs},
                    {"generated_tokens", rt.generated},
                    {"decode_tok_s", rt.decodeMs > 0 ? dec * 1000.0 / rt.decodeMs : 0},
                    {"request_tok_s", rt.generated * 1000.0 / (rt.prefillMs + rt.decodeMs)}});
    }
    j["runs"] = rs;
    if (o.profile) {
      nlohmann::json p = nlohmann::json::array();
      for (const auto &k : prof)
        p.push_back({{"kernel", k.name},
                     {"launches", k.launches},
                     {"ms", k.ms},
                     {"bytes", k.bytes}});
      j["profile"] = p;
      nlohmann::json pp = nlohmann::json::array();
      for (const auto &k : prefillProf)
        pp.push_back({{"kernel", k.name}, {"launches", k.launches}, {"ms", k.ms}});
      j["prefill_profile"] = pp;
      j["copy_bytes_per_s"] = copyBps;
    }
    std::cout << j.dump() << "\n";
    if (!std::cout.flush())
      fail("cannot write the output to stdout");
    return 0;
  }
  std::fwrite(tail.data(), 1, tail.size(), stdout);
  std::printf("\n");
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout))
    fail(std::string("cannot write the output to stdout: ") +
         (errno ? std::strerror(errno) : "write error"));
  std::fprintf(stderr,
               "[qwen3-run] prompt tokens %zu, prefill %.1f ms, generated %zu "
               "tokens, decode %.1f tok/s (%s)\n",
               ids.size(), prefillMs, out.size(), tokS, engine->deviceName().c_str());
  if (o.profile) {
    // Each kernel timed alone (events around every launch, no graph): the
    // bandwidth it reached on the bytes it must move, against a copy's.
    double total = 0, totalBytes = 0;
    for (const auto &k : prof)
      total += k.ms, totalBytes += k.bytes;
    std::fprintf(stderr, "%-36s %8s %10s %6s %10s %8s\n", "kernel", "launches",
                 "ms", "%", "GB/s", "of copy");
    auto row = [&](const char *name, std::string launches, double ms,
                   double bytes) {
      double gbs = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
      std::fprintf(stderr, "%-36s %8s %10.4f %6.1f %10.1f %7.1f%%\n", name,
                   launches.c_str(), ms, total > 0 ? 100 * ms / total : 0, gbs,
                   copyBps > 0 ? 100 * gbs * 1e9 / copyBps : 0);
    };
    for (const auto &k : prof)
      row(k.name.c_str(), std::to_string(k.launches), k.ms, k.bytes);
    row("total", "", total, totalBytes);
    std::fprintf(stderr, "copy bandwidth %.1f GB/s (device to device, read + write)\n",
                 copyBps / 1e9);
    double prefillTotal = 0;
    for (const auto &k : prefillProf)
      prefillTotal += k.ms;
    std::fprintf(stderr, "\nprefill of %zu tokens, each launch timed alone:\n%-36s %8s %10s %6s\n",
                 ids.size(), "kernel", "launches", "ms", "%");
    for (const auto &k : prefillProf)
      std::fprintf(stderr, "%-36s %8d %10.3f %6.1f\n", k.name.c_str(), k.launches,
                   k.ms, prefillTotal > 0 ? 100 * k.ms / prefillTotal : 0);
    std::fprintf(stderr, "%-36s %8s %10.3f\n", "total", "", prefillTotal);
  }
  return 0;
}
