//===- Logprobs.cpp - the log-probabilities of generated tokens ------------===//

#include "qwen3/serve/Logprobs.h"

#include <algorithm>
#include <cmath>

namespace qwen3::serve {

TokenLogprob tokenLogprob(const std::vector<float> &logits, int32_t token, int top) {
  // log_softmax in double: max-shifted, so no exp overflows.
  float most = -INFINITY;
  for (float v : logits)
    most = std::max(most, v);
  double sum = 0;
  for (float v : logits)
    sum += std::exp(double(v) - most);
  const double logZ = most + std::log(sum);
  TokenLogprob r;
  r.token = token;
  r.logprob = static_cast<float>(double(logits[token]) - logZ);
  if (top > 0) {
    std::vector<int32_t> ids(logits.size());
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = static_cast<int32_t>(i);
    const size_t k = std::min<size_t>(top, ids.size());
    // Ties go to the smaller id, as the engine's argmax breaks them.
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
      return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
    });
    for (size_t i = 0; i < k; ++i)
      r.top.push_back({ids[i], static_cast<float>(double(logits[ids[i]]) - logZ)});
  }
  return r;
}

namespace {
/// A token's text (its bytes as UTF-8; a token ending inside a character
/// shows U+FFFD for the piece, as the APIs do) and its bytes.
std::string tokenText(const std::string &bytes) {
  std::string out;
  size_t i = 0;
  while (i < bytes.size()) {
    unsigned char c = bytes[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= bytes.size();
    for (size_t j = 1; ok && j < n; ++j)
      ok = (static_cast<unsigned char>(bytes[i + j]) >> 6) == 2;
    if (ok) {
      out.append(bytes, i, n);
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}
nlohmann::json byteList(const std::string &bytes) {
  nlohmann::json b = nlohmann::json::array();
  for (unsigned char c : bytes)
    b.push_back(int(c));
  return b;
}
} // namespace

nlohmann::json chatLogprobs(const std::vector<TokenLogprob> &lps, const Tokenizer &tokenizer) {
  nlohmann::json content = nlohmann::json::array();
  for (const TokenLogprob &lp : lps) {
    const std::string &bytes = tokenizer.tokenBytes(lp.token);
    nlohmann::json top = nlohmann::json::array();
    for (const auto &[id, v] : lp.top) {
      const std::string &tb = tokenizer.tokenBytes(id);
      top.push_back({{"token", tokenText(tb)}, {"logprob", v}, {"bytes", byteList(tb)}});
    }
    content.push_back({{"token", tokenText(bytes)},
                       {"logprob", lp.logprob},
                       {"bytes", byteList(bytes)},
                       {"top_logprobs", std::move(top)}});
  }
  return {{"content", std::move(content)}};
}

nlohmann::json completionLogprobs(const std::vector<TokenLogprob> &lps,
                                  const Tokenizer &tokenizer, int64_t textOffset) {
  nlohmann::json tokens = nlohmann::json::array(), values = nlohmann::json::array(),
                 tops = nlohmann::json::array(), offsets = nlohmann::json::array();
  for (const TokenLogprob &lp : lps) {
    const std::string &bytes = tokenizer.tokenBytes(lp.token);
    tokens.push_back(tokenText(bytes));
    values.push_back(lp.logprob);
    nlohmann::json top = nlohmann::json::object();
    for (const auto &[id, v] : lp.top)
      top[tokenText(tokenizer.tokenBytes(id))] = v;
    tops.push_back(std::move(top));
    offsets.push_back(textOffset);
    textOffset += static_cast<int64_t>(bytes.size());
  }
  return {{"tokens", std::move(tokens)},
          {"token_logprobs", std::move(values)},
          {"top_logprobs", std::move(tops)},
          {"text_offset", std::move(offsets)}};
}

} // namespace qwen3::serve
