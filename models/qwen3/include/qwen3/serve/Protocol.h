//===- Protocol.h - OpenAI-compatible requests and responses ----*- C++ -*-===//
//
// The request bodies of POST /v1/chat/completions and /v1/completions,
// parsed and checked into a GenerationRequest (the prompt as token ids, the
// sampling, the limits), and the response objects and stream chunks, in
// the shapes the OpenAI API and its clients use. A bad field is an ApiError
// naming it, with the status the API gives it.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_PROTOCOL_H
#define QWEN3_SERVE_PROTOCOL_H

#include "qwen3/Config.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"
#include "qwen3/serve/ToolCalls.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace qwen3::serve {

/// An error as the OpenAI API reports it: {"error": {message, type, param,
/// code}} with an HTTP status.
struct ApiError {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param; ///< the request field, if one is at fault
  nlohmann::json body() const;
};

enum class Endpoint { Chat, Completion };

/// What the server needs to know of the model to check a request.
struct ModelInfo {
  std::string id;          ///< the name clients pass as "model"
  const ModelConfig *config = nullptr;
  const Tokenizer *tokenizer = nullptr;
  int64_t contextLength = 0; ///< the engine's --max-seq-len
  int64_t maxTokens = 0;     ///< the cap on max_tokens (--max-tokens)
};

struct GenerationRequest {
  Endpoint endpoint = Endpoint::Chat;
  std::vector<int32_t> promptIds;
  int64_t maxTokens = 0; ///< tokens to generate at most
  Sampling sampling;     ///< disabled: greedy (temperature 0)
  std::vector<std::string> stop; ///< at most 4, none empty
  bool stream = false, includeUsage = false;
  /// Generate past end-of-sequence tokens (vLLM's `ignore_eos`: benchmarks).
  bool ignoreEos = false;
  /// Chat: the prompt leaves thinking on, and the output's <think> block
  /// is returned as reasoning_content.
  bool thinking = true;
  /// Chat with tools (tool_choice "auto"): the output's <tool_call> blocks
  /// become tool_calls.
  bool parseToolCalls = false;
  /// logprobs: -1 none, else the log-probability of each generated token
  /// with this many alternatives (chat: top_logprobs 0..20; completions:
  /// logprobs 0..5).
  int topLogprobs = -1;
};

/// Parses and checks `body` for `endpoint`; false with `error` set.
/// Sampling defaults to generation_config.json's (temperature 0: greedy);
/// a request without a seed gets `defaultSeed`.
bool parseRequest(Endpoint endpoint, const std::string &body, const ModelInfo &model,
                  uint64_t defaultSeed, GenerationRequest &request, ApiError &error);

/// Why a generation ended: "stop" (an end-of-sequence token or a stop
/// string), "length" (max_tokens or the context).
struct Usage {
  int64_t promptTokens = 0, completionTokens = 0;
  /// Prompt tokens whose KV cache was reused, not computed
  /// (usage.prompt_tokens_details.cached_tokens).
  int64_t cachedTokens = 0;
  nlohmann::json json() const;
};

/// The response builders: a whole response, and the stream's chunks (each
/// sent as `data: <json>\n\n`, then `data: [DONE]\n\n`).
/// With tool calls, finish_reason is "tool_calls" and an empty content is
/// null.
nlohmann::json completionResponse(Endpoint endpoint, const std::string &id,
                                  const std::string &model, int64_t created,
                                  const std::string &content, const std::string &reasoning,
                                  const std::string &finishReason, const Usage &usage,
                                  const std::vector<ToolCall> &toolCalls = {},
                                  const nlohmann::json &logprobs = nullptr);
nlohmann::json streamChunk(Endpoint endpoint, const std::string &id, const std::string &model,
                           int64_t created, const std::string *content,
                           const std::string *reasoning, bool roleChunk,
                           const std::string *finishReason,
                           const std::vector<ToolCall> *toolCalls = nullptr,
                           const nlohmann::json &logprobs = nullptr);
nlohmann::json usageChunk(Endpoint endpoint, const std::string &id, const std::string &model,
                          int64_t created, const Usage &usage);

} // namespace qwen3::serve

#endif // QWEN3_SERVE_PROTOCOL_H
