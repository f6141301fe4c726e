//===- ChatSession.cpp - an interactive chat on the engine ----------------===//

#include "qwen3/ChatSession.h"

#include "qwen3/Unicode.h"

#include <algorithm>
#include <vector>

namespace qwen3 {

namespace {

/// One line of `in` without its newline; false at end of input.
bool readLine(std::FILE *in, std::string &line) {
  line.clear();
  int c;
  while ((c = std::fgetc(in)) != EOF && c != '\n')
    line += static_cast<char>(c);
  return c != EOF || !line.empty();
}

std::string trim(const std::string &s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

const char *kHelp = "/clear starts a new conversation, /think turns thinking on or off, "
                    "/exit (or Ctrl-D) quits\n";

} // namespace

Status runChat(Engine &engine, const Tokenizer &tok, const ChatOptions &options,
               std::FILE *in, std::FILE *out, std::FILE *notes) {
  const ModelConfig &cfg = engine.config();
  bool thinking = options.thinking;
  std::vector<ChatMessage> history;
  auto restart = [&] {
    history.clear();
    if (!options.system.empty())
      history.push_back({"system", options.system, std::nullopt, {}});
  };
  restart();
  std::fprintf(notes, "Chatting on %s, thinking %s. %s", engine.deviceName().c_str(),
               thinking ? "on" : "off", kHelp);
  std::string line;
  for (;;) {
    if (options.prompt) {
      std::fputs(">>> ", out);
      std::fflush(out);
    }
    if (!readLine(in, line))
      break;
    const std::string text = trim(line);
    if (text.empty())
      continue;
    if (text == "/exit" || text == "/quit" || text == "/bye")
      break;
    if (text == "/clear") {
      restart();
      std::fprintf(notes, "(a new conversation)\n");
      continue;
    }
    if (text == "/think") {
      thinking = !thinking;
      std::fprintf(notes, "(thinking %s)\n", thinking ? "on" : "off");
      continue;
    }
    if (text == "/help" || text[0] == '/') {
      std::fputs(kHelp, notes);
      continue;
    }

    history.push_back({"user", text, std::nullopt, {}});
    std::vector<int32_t> ids;
    if (Status st = tok.encode(renderChat(history, true, thinking), ids); !st)
      return st;
    if (static_cast<int64_t>(ids.size()) >= engine.maxSeqLen()) {
      history.pop_back();
      std::fprintf(notes,
                   "(the conversation has %zu tokens, the context holds %lld: /clear to "
                   "start over)\n",
                   ids.size(), static_cast<long long>(engine.maxSeqLen()));
      continue;
    }
    const int64_t budget =
        std::min<int64_t>(options.maxNewTokens, engine.maxSeqLen() - int64_t(ids.size()));
    // The conversation so far is in the KV cache: only the new turn is
    // prefilled (the template renders earlier turns as they were fed,
    // except the thinking it drops from them, where the reuse stops).
    int32_t token = -1;
    int64_t reused = 0;
    if (Status st = engine.prefillReusing(ids, token, reused); !st)
      return st;
    Utf8Stream utf8;
    std::string reply;
    auto isEos = [&](int32_t t) { return !options.ignoreEos && cfg.isEndOfSequence(t); };
    for (int64_t n = 1;; ++n) {
      if (isEos(token))
        break;
      std::string piece = utf8.feed(tok.tokenBytes(token));
      reply += piece;
      std::fwrite(piece.data(), 1, piece.size(), out);
      std::fflush(out);
      if (n >= budget)
        break;
      if (Status st = engine.decode(token, token); !st)
        return st;
    }
    std::string tail = utf8.finish();
    reply += tail;
    tail += "\n";
    std::fwrite(tail.data(), 1, tail.size(), out);
    std::fflush(out);
    history.push_back({"assistant", reply, std::nullopt, {}});
  }
  return Status::ok();
}

} // namespace qwen3
