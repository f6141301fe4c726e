//===- ToolCalls.h - Qwen3's <tool_call> blocks and tool JSON ---*- C++ -*-===//
//
// Qwen3 calls a tool by writing `<tool_call>\n{"name": ..., "arguments":
// {...}}\n</tool_call>` (the Hermes format its chat template asks for).
// ToolCallStream takes the content of a streamed generation, releases the
// text that cannot be part of a call as it comes, and at the end returns
// the calls it parsed (as vLLM's and SGLang's Qwen3/Hermes tool parsers
// do); a block that is not a JSON call stays text. pythonJson writes JSON
// as the chat template's `tojson` (Python's json.dumps: `, ` and `: `
// separators, keys in their order, non-ASCII as is), so the prompt is the
// one transformers renders.
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_TOOLCALLS_H
#define QWEN3_SERVE_TOOLCALLS_H

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace qwen3::serve {

/// `value` as json.dumps(value, ensure_ascii=False) writes it.
std::string pythonJson(const nlohmann::ordered_json &value);

struct ToolCall {
  std::string name;
  std::string arguments; ///< a JSON object's text, as pythonJson writes it
};

class ToolCallStream {
public:
  /// Content that can no longer be part of a call; after the first
  /// `<tool_call>` everything is held until finish().
  std::string feed(std::string_view content);
  struct Result {
    std::string content; ///< what was held and is not a call
    std::vector<ToolCall> calls;
  };
  /// The calls, and the held text that is not one.
  Result finish();
  /// A whole generation's content: its calls, and the text around them.
  static Result split(std::string_view content);

private:
  std::string held_;
  bool inCalls_ = false;
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_TOOLCALLS_H
