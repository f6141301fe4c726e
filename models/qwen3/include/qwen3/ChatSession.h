//===- ChatSession.h - an interactive chat on the engine --------*- C++ -*-===//
//
// `qwen3-run --model DIR` with no prompt: read a line, answer it with the
// whole conversation as the prompt (Qwen3's chat template), stream the reply
// as it is generated, keep the history. Commands: /clear (a new
// conversation), /think (thinking on or off), /help, /exit (or end of
// input).
//
//===----------------------------------------------------------------------===//

#ifndef QWEN3_CHATSESSION_H
#define QWEN3_CHATSESSION_H

#include "qwen3/ChatTemplate.h"
#include "qwen3/Engine.h"
#include "qwen3/Tokenizer.h"

#include <cstdio>
#include <string>

namespace qwen3 {

struct ChatOptions {
  std::string system;      ///< a system message opening every conversation
  bool thinking = false;   ///< /think toggles it
  int64_t maxNewTokens = 128; ///< per reply
  bool ignoreEos = false;
  bool prompt = true;      ///< print ">>> " before each line (a terminal)
};

/// Runs the chat until /exit or end of input; replies go to `out`,
/// notices (the banner, a context that is full) to `notes`. An engine
/// error ends it with that error.
Status runChat(Engine &engine, const Tokenizer &tokenizer, const ChatOptions &options,
               std::FILE *in, std::FILE *out, std::FILE *notes);

} // namespace qwen3

#endif // QWEN3_CHATSESSION_H
