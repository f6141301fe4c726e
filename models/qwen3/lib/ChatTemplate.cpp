//===- ChatTemplate.cpp - Qwen3's ChatML prompt rendering -----------------===//
//
// A line-by-line transcription of the template's logic (no Jinja engine):
// the only inputs are messages, the tools and two flags, so a direct
// rendering is both smaller and easier to test against Hugging Face's
// output.
//
//===----------------------------------------------------------------------===//

#include "qwen3/ChatTemplate.h"

#include <nlohmann/json.hpp>

namespace qwen3 {
namespace {

std::string lstripNl(const std::string &s) {
  size_t i = s.find_first_not_of('\n');
  return i == std::string::npos ? "" : s.substr(i);
}
std::string rstripNl(const std::string &s) {
  size_t i = s.find_last_not_of('\n');
  return i == std::string::npos ? "" : s.substr(0, i + 1);
}
bool startsWith(const std::string &s, const std::string &p) {
  return s.compare(0, p.size(), p) == 0;
}
bool endsWith(const std::string &s, const std::string &p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}
/// Python's s.split(sep)[-1] and s.split(sep)[0].
std::string afterLast(const std::string &s, const std::string &sep) {
  size_t i = s.rfind(sep);
  return i == std::string::npos ? s : s.substr(i + sep.size());
}
std::string beforeFirst(const std::string &s, const std::string &sep) {
  size_t i = s.find(sep);
  return i == std::string::npos ? s : s.substr(0, i);
}

} // namespace

tile_runtime::Status parseMessages(const std::string &json,
                                   const std::string &source,
                                   std::vector<ChatMessage> &messages) {
  using tile_runtime::Status;
  messages.clear();
  nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded())
    return Status::error(source + ": malformed JSON");
  if (!j.is_array() || j.empty())
    return Status::error(source + ": expected a non-empty JSON list of "
                                  "{\"role\", \"content\"} messages");
  for (size_t i = 0; i < j.size(); ++i) {
    const auto &m = j[i];
    std::string where = source + ": message " + std::to_string(i);
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string() ||
        !m.contains("content") || !m["content"].is_string())
      return Status::error(where + " needs string \"role\" and \"content\"");
    ChatMessage msg{m["role"].get<std::string>(), m["content"].get<std::string>(),
                    std::nullopt, {}};
    if (msg.role != "system" && msg.role != "user" && msg.role != "assistant" &&
        msg.role != "tool")
      return Status::error(where + ": unknown role '" + msg.role +
                           "' (system, user, assistant, tool)");
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
      msg.reasoningContent = m["reasoning_content"].get<std::string>();
    if (m.contains("tool_calls")) {
      const auto &calls = m["tool_calls"];
      if (msg.role != "assistant" || !calls.is_array())
        return Status::error(where + ": \"tool_calls\" is a list, on assistant "
                                     "messages only");
      for (const auto &c : calls) {
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string() ||
            !c.contains("arguments") || !c["arguments"].is_string())
          return Status::error(where + ": a tool call needs string \"name\" and "
                                       "\"arguments\"");
        msg.toolCalls.push_back(
            {c["name"].get<std::string>(), c["arguments"].get<std::string>()});
      }
    }
    messages.push_back(std::move(msg));
  }
  return Status::ok();
}

std::string renderChat(const std::vector<ChatMessage> &messages,
                       bool addGenerationPrompt, bool enableThinking,
                       const std::vector<std::string> &tools) {
  std::string out;
  const size_t n = messages.size();
  if (!tools.empty()) {
    out += "<|im_start|>system\n";
    if (n && messages[0].role == "system")
      out += messages[0].content + "\n\n";
    out += "# Tools\n\nYou may call one or more functions to assist with the user "
           "query.\n\nYou are provided with function signatures within "
           "<tools></tools> XML tags:\n<tools>";
    for (const std::string &t : tools)
      out += "\n" + t;
    out += "\n</tools>\n\nFor each function call, return a json object with function "
           "name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n"
           "{\"name\": <function-name>, \"arguments\": <args-json-object>}\n"
           "</tool_call><|im_end|>\n";
  } else if (n && messages[0].role == "system") {
    out += "<|im_start|>system\n" + messages[0].content + "<|im_end|>\n";
  }

  // The last user message that is not a wrapped tool response.
  size_t lastQuery = n ? n - 1 : 0;
  for (size_t k = n; k-- > 0;) {
    const auto &m = messages[k];
    if (m.role == "user" && !(startsWith(m.content, "<tool_response>") &&
                              endsWith(m.content, "</tool_response>"))) {
      lastQuery = k;
      break;
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const auto &m = messages[i];
    if (m.role == "user" || (m.role == "system" && i != 0)) {
      out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
    } else if (m.role == "assistant") {
      std::string content = m.content, reasoning;
      if (m.reasoningContent) {
        reasoning = *m.reasoningContent;
      } else if (content.find("</think>") != std::string::npos) {
        content = lstripNl(afterLast(m.content, "</think>"));
        reasoning = lstripNl(
            afterLast(rstripNl(beforeFirst(m.content, "</think>")), "<think>"));
      }
      bool last = i + 1 == n;
      if (i > lastQuery && (last || !reasoning.empty()))
        out += "<|im_start|>assistant\n<think>\n" + lstripNl(rstripNl(reasoning)) +
               "\n</think>\n\n" + lstripNl(content);
      else
        out += "<|im_start|>assistant\n" + content;
      for (size_t c = 0; c < m.toolCalls.size(); ++c) {
        if (c > 0 || !content.empty())
          out += "\n";
        out += "<tool_call>\n{\"name\": \"" + m.toolCalls[c].name +
               "\", \"arguments\": " + m.toolCalls[c].arguments + "}\n</tool_call>";
      }
      out += "<|im_end|>\n";
    } else if (m.role == "tool") {
      if (i == 0 || messages[i - 1].role != "tool")
        out += "<|im_start|>user";
      out += "\n<tool_response>\n" + m.content + "\n</tool_response>";
      if (i + 1 == n || messages[i + 1].role != "tool")
        out += "<|im_end|>\n";
    }
  }
  if (addGenerationPrompt) {
    out += "<|im_start|>assistant\n";
    if (!enableThinking)
      out += "<think>\n\n</think>\n\n";
  }
  return out;
}

} // namespace qwen3
