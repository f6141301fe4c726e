//===- ChatTemplate.h - Qwen3's ChatML prompt rendering ---------*- C++ -*-===//
//
// Renders a conversation exactly as the Jinja chat template of Qwen3's
// tokenizer_config.json does: the tools' signatures, system message,
// multi-turn history (reasoning kept only after the last user query), the
// assistant's tool calls and the tool responses, and the generation prompt
// with `enable_thinking` on or off.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_CHATTEMPLATE_H
#define QWEN3_CHATTEMPLATE_H

#include "tile/runtime/Status.h"

#include <optional>
#include <string>
#include <vector>

namespace qwen3 {

/// A call the assistant made: the function and its arguments' JSON text.
struct ChatToolCall {
  std::string name, arguments;
};

struct ChatMessage {
  std::string role; ///< system, user, assistant or tool
  std::string content;
  std::optional<std::string> reasoningContent; ///< assistant only
  std::vector<ChatToolCall> toolCalls;         ///< assistant only
};

/// Reads a JSON list of {"role", "content"[, "reasoning_content"][,
/// "tool_calls": [{"name", "arguments"}]]} (arguments a string of JSON);
/// errors name `source` and the message index.
tile_runtime::Status parseMessages(const std::string &json,
                                   const std::string &source,
                                   std::vector<ChatMessage> &messages);

/// The prompt text; `addGenerationPrompt` opens the assistant turn, and with
/// `enableThinking` false adds the empty think block. `tools`: each tool's
/// JSON as the template's `tojson` writes it (serve::pythonJson).
std::string renderChat(const std::vector<ChatMessage> &messages,
                       bool addGenerationPrompt, bool enableThinking,
                       const std::vector<std::string> &tools = {});

} // namespace qwen3

#endif // QWEN3_CHATTEMPLATE_H
