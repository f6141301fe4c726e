//===- Qwen3TestUtils.h - fixtures of the Qwen3 tests -----------*- C++ -*-===//

#ifndef QWEN3_TEST_UTILS_H
#define QWEN3_TEST_UTILS_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace qwen3::test {

inline bool fileExists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

/// The shared Qwen3 data (tokenizer, HF cases); absent outside the workplace,
/// so tests that need it skip with a message.
inline std::string sharedDir() { return QWEN3_SHARED_DIR; }
inline std::string fixturesDir() {
  const char *d = std::getenv("QWEN3_TEST_FIXTURES"); // a copy elsewhere
  return d && *d ? d : QWEN3_FIXTURES_DIR;
}

/// The device the engine and kernel tests run on: the CPU here;
/// QWEN3_TEST_DEVICE=cuda on the GPU machine runs the same tests there.
inline std::string testDevice() {
  const char *d = std::getenv("QWEN3_TEST_DEVICE");
  return d && *d ? d : "cpu";
}
/// The compiled kernel set (the build's, unless QWEN3_TEST_KERNELS names a
/// copy carried elsewhere).
inline std::string kernelsDir() {
  const char *d = std::getenv("QWEN3_TEST_KERNELS");
  return d && *d ? d : QWEN3_KERNELS_DIR;
}

/// Cosine similarity and relative RMS error of `got` against `want`.
struct LogitsAgreement {
  double cosine = 0, relError = 0;
};
inline LogitsAgreement agreement(const float *want, const float *got, size_t n) {
  double dot = 0, na = 0, nb = 0, diff = 0;
  for (size_t i = 0; i < n; ++i) {
    double a = want[i], b = got[i];
    dot += a * b, na += a * a, nb += b * b, diff += (a - b) * (a - b);
  }
  return {dot / std::sqrt(na * nb), std::sqrt(diff / na)};
}

inline std::vector<nlohmann::json> readJsonl(const std::string &path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty())
      out.push_back(nlohmann::json::parse(line));
  return out;
}

} // namespace qwen3::test

#define QWEN3_REQUIRE_SHARED(path)                                             \
  do {                                                                         \
    if (!::qwen3::test::fileExists(path))                                      \
      GTEST_SKIP() << "needs " << (path)                                       \
                   << " (the shared Qwen3 data), absent here";                 \
  } while (0)

#endif
