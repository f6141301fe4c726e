//===- ChatTemplate.h - Qwen3's ChatML prompt rendering ---------*- C++ -*-===//
//
// Renders a conversation exactly as the Jinja chat template of Qwen3's
// tokenizer_config.json does (without tools): system message, multi-turn
// history (reasoning kept only after the last user query), tool responses,
// and the generation prompt with `enable_thinking` on or off.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_CHATTEMPLATE_H
#define QWEN3_CHATTEMPLATE_H

#include "tile/runtime/Status.h"

#include <optional>
#include <string>
#include <vector>

namespace qwen3 {

struct ChatMessage {
  std::string role; ///< system, user, assistant or tool
  std::string content;
  std::optional<std::string> reasoningContent; ///< assistant only
};

/// Reads a JSON list of {"role", "content"[, "reasoning_content"]}; errors
/// name `source` and the message index.
tile_runtime::Status parseMessages(const std::string &json,
                                   const std::string &source,
                                   std::vector<ChatMessage> &messages);

/// The prompt text; `addGenerationPrompt` opens the assistant turn, and with
/// `enableThinking` false adds the empty think block.
std::string renderChat(const std::vector<ChatMessage> &messages,
                       bool addGenerationPrompt, bool enableThinking);

} // namespace qwen3

#endif // QWEN3_CHATTEMPLATE_H
