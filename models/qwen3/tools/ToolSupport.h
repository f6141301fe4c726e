//===- ToolSupport.h - what qwen3-run and qwen3-serve share -----*- C++ -*-===//
//
// Flag parsing and the one-line error exit of the Qwen3 tools, and the check
// that a tokenizer fits the model, made before any weight is read.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_TOOLS_TOOLSUPPORT_H
#define QWEN3_TOOLS_TOOLSUPPORT_H

#include "qwen3/Config.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace qwen3::tool {

/// The tool's name in error lines ("qwen3-run").
inline const char *&name() {
  static const char *n = "qwen3";
  return n;
}

/// One line on stderr, `<tool>: error: msg`, and status 1.
[[noreturn]] inline void fail(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "%s: error: %s\n", name(), msg.c_str());
  std::exit(1);
}

/// The value after the flag argv[i] (i moves onto it); fails where none
/// follows.
inline std::string flagValue(int argc, char **argv, int &i) {
  const std::string flag = argv[i];
  if (i + 1 >= argc)
    fail(flag + ": needs a value");
  return argv[++i];
}

inline int64_t parseInt(const std::string &flag, const std::string &v, int64_t lo, int64_t hi) {
  char *end = nullptr;
  errno = 0;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || errno || x < lo || x > hi)
    fail(flag + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "], got '" + v + "'");
  return x;
}

/// A size in bytes: an integer, optionally followed by KiB, MiB, GiB, TiB
/// (powers of 1024) or KB, MB, GB, TB (powers of 1000).
inline int64_t parseBytes(const std::string &flag, const std::string &v) {
  static const std::pair<const char *, double> units[] = {
      {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0},
      {"KB", 1e3},     {"MB", 1e6},        {"GB", 1e9},           {"TB", 1e12},
      {"B", 1.0},      {"", 1.0}};
  size_t digits = 0;
  while (digits < v.size() && v[digits] >= '0' && v[digits] <= '9')
    ++digits;
  const std::string unit = v.substr(digits);
  for (const auto &[name, scale] : units) {
    if (digits == 0 || digits > 15 || unit != name)
      continue;
    const double bytes = std::stod(v.substr(0, digits)) * scale;
    if (bytes >= 1 && bytes < 9.0e18)
      return static_cast<int64_t>(bytes);
    break;
  }
  fail(flag + ": expected a size (bytes, or with KiB, MiB, GiB, TiB, KB, MB, GB or TB), got '" +
       v + "'");
}

inline double parseReal(const std::string &flag, const std::string &v) {
  char *end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x))
    fail(flag + ": expected a number, got '" + v + "'");
  return x;
}

/// --weights: how the projections are held (EngineOptions::Weights).
inline EngineOptions::Weights parseWeights(const std::string &flag, const std::string &v) {
  if (v == "stored")
    return EngineOptions::Weights::Stored;
  if (v == "16bit")
    return EngineOptions::Weights::Dequantized;
  if (v == "fp8")
    return EngineOptions::Weights::Fp8;
  fail(flag + ": expected stored, 16bit or fp8, got '" + v + "'");
}

/// --fp8-gemm-weights: where the GEMMs take FP8 projections' 16-bit
/// weights from (EngineOptions::Fp8GemmWeights).
inline EngineOptions::Fp8GemmWeights parseFp8GemmWeights(const std::string &flag,
                                                         const std::string &v) {
  if (v == "auto")
    return EngineOptions::Fp8GemmWeights::Auto;
  if (v == "per-gemm")
    return EngineOptions::Fp8GemmWeights::PerGemm;
  if (v == "resident")
    return EngineOptions::Fp8GemmWeights::Resident;
  fail(flag + ": expected auto, per-gemm or resident, got '" + v + "'");
}

/// The --fp8-gemm-weights word for `where`.
inline const char *fp8GemmWeightsName(EngineOptions::Fp8GemmWeights where) {
  switch (where) {
  case EngineOptions::Fp8GemmWeights::Auto:
    return "auto";
  case EngineOptions::Fp8GemmWeights::PerGemm:
    return "per-gemm";
  case EngineOptions::Fp8GemmWeights::Resident:
    return "resident";
  }
  return "?";
}

/// --all-reduce: how a tensor-parallel decode step all-reduces
/// (EngineOptions::AllReduce).
inline EngineOptions::AllReduce parseAllReduce(const std::string &flag, const std::string &v) {
  if (v == "auto")
    return EngineOptions::AllReduce::Auto;
  if (v == "nccl")
    return EngineOptions::AllReduce::Nccl;
  if (v == "peer")
    return EngineOptions::AllReduce::Peer;
  fail(flag + ": expected auto, nccl or peer, got '" + v + "'");
}

/// Loads `model`/tokenizer.json, and checks that every id it makes has an
/// embedding row (the embedding kernel reads zeros for an id past the
/// table), before the engine reads any weight.
inline void loadTokenizer(const std::string &model, Tokenizer &tok) {
  if (Status st = Tokenizer::load(model + "/tokenizer.json", tok); !st)
    fail(st.message());
  ModelConfig cfg;
  if (Status st = ModelConfig::load(model, cfg); !st)
    fail(st.message());
  if (tok.vocabSize() > cfg.vocabSize)
    fail(model + "/tokenizer.json: ids go up to " + std::to_string(tok.vocabSize() - 1) +
         ", past config.json's vocab_size " + std::to_string(cfg.vocabSize));
}

} // namespace qwen3::tool

#endif // QWEN3_TOOLS_TOOLSUPPORT_H
