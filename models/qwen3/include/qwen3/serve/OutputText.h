//===- OutputText.h - generated tokens to the text a client sees -*- C++ -*-===//
//
// Generated token bytes become text in three steps: only complete UTF-8 is
// released (Utf8Stream); stop strings are matched on the text across token
// boundaries, text that could still begin one being held back until it
// cannot; and with thinking on, Qwen3's `<think> ... </think>` block goes to
// the reasoning, the rest to the content (as vLLM's and SGLang's Qwen3
// reasoning parsers split it).
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_SERVE_OUTPUTTEXT_H
#define QWEN3_SERVE_OUTPUTTEXT_H

#include "qwen3/Unicode.h"

#include <string>
#include <string_view>
#include <vector>

namespace qwen3::serve {

class OutputText {
public:
  OutputText(std::vector<std::string> stops, bool splitReasoning);

  /// Text released by one step.
  struct Delta {
    std::string reasoning, content;
    bool empty() const { return reasoning.empty() && content.empty(); }
  };
  /// Feeds one token's bytes. After a stop string matched, `stopped()` is
  /// true, the text before it has been released, and later feeds release
  /// nothing.
  Delta feed(std::string_view bytes);
  /// Releases what is still held (the generation ended without a stop
  /// string).
  Delta finish();
  bool stopped() const { return stopped_; }

private:
  /// Passes stop-checked text on to the reasoning split.
  void release(std::string text, Delta &out);
  void split(std::string text, Delta &out, bool final);

  std::vector<std::string> stops_;
  Utf8Stream utf8_;
  std::string held_;     ///< text that may begin a stop string
  std::string tagHeld_;  ///< text that may begin a think tag
  enum class Phase { Start, Reasoning, Content } phase_;
  bool trimContentStart_ = false;   ///< drop the newlines after </think>
  bool trimReasoningStart_ = false; ///< and after <think>
  bool stopped_ = false;
};

} // namespace qwen3::serve

#endif // QWEN3_SERVE_OUTPUTTEXT_H
