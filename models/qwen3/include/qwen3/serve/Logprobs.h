//===- Logprobs.h - the log-probabilities of generated tokens ---*- C++ -*-===//
//
// `logprobs` / `top_logprobs`: the log-softmax of the model's logits at each
// generated token (the raw distribution, before temperature and top-k/p, as
// OpenAI and vLLM report it), the chosen token's and the most likely
// alternatives', in the shapes of the chat and the completions APIs.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_LOGPROBS_H
#define QWEN3_SERVE_LOGPROBS_H

#include "qwen3/Tokenizer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace qwen3::serve {

struct TokenLogprob {
  int32_t token = 0;
  float logprob = 0;
  std::vector<std::pair<int32_t, float>> top; ///< most likely first
};

/// The logprob of `token` under `logits`, and the `top` most likely tokens.
TokenLogprob tokenLogprob(const std::vector<float> &logits, int32_t token, int top);

/// Chat: {"content": [{"token", "logprob", "bytes", "top_logprobs"}]}.
nlohmann::json chatLogprobs(const std::vector<TokenLogprob> &lps, const Tokenizer &tokenizer);
/// Completions: {"tokens", "token_logprobs", "top_logprobs", "text_offset"}.
nlohmann::json completionLogprobs(const std::vector<TokenLogprob> &lps,
                                  const Tokenizer &tokenizer, int64_t textOffset);

} // namespace qwen3::serve

#endif // QWEN3_SERVE_LOGPROBS_H
