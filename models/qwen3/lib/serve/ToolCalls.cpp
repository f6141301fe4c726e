//===- ToolCalls.cpp - Qwen3's <tool_call> blocks and tool JSON ------------===//

#include "qwen3/serve/ToolCalls.h"


namespace qwen3::serve {

namespace {
constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>";

void writePython(const nlohmann::ordered_json &v, std::string &out) {
  switch (v.type()) {
  case nlohmann::ordered_json::value_t::object: {
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (!first)
        out += ", ";
      first = false;
      out += nlohmann::ordered_json(it.key()).dump();
      out += ": ";
      writePython(it.value(), out);
    }
    out += '}';
    return;
  }
  case nlohmann::ordered_json::value_t::array: {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i)
        out += ", ";
      writePython(v[i], out);
    }
    out += ']';
    return;
  }
  default:
    // Strings (json.dumps escapes the same characters, \u00xx for the
    // other control ones, and leaves the rest of UTF-8 as is), numbers,
    // true, false, null: the same text.
    out += v.dump();
  }
}

std::string_view trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string_view() : s.substr(b, e - b + 1);
}

/// The longest suffix of `text` that is a proper prefix of `tag`.
size_t partialTag(std::string_view text, std::string_view tag) {
  for (size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n)
    if (text.substr(text.size() - n) == tag.substr(0, n))
      return n;
  return 0;
}
} // namespace

std::string pythonJson(const nlohmann::ordered_json &value) {
  std::string out;
  writePython(value, out);
  return out;
}

std::string ToolCallStream::feed(std::string_view content) {
  held_ += content;
  if (inCalls_)
    return {};
  size_t open = held_.find(kOpen);
  if (open != std::string::npos) {
    inCalls_ = true;
    std::string out = held_.substr(0, open);
    held_.erase(0, open);
    return out;
  }
  size_t keep = partialTag(held_, kOpen);
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

ToolCallStream::Result ToolCallStream::split(std::string_view content) {
  ToolCallStream s;
  std::string before = s.feed(content);
  Result r = s.finish();
  r.content = before + r.content;
  if (!r.calls.empty()) // the whitespace around the calls
    r.content = std::string(trimmed(r.content));
  return r;
}

ToolCallStream::Result ToolCallStream::finish() {
  Result r;
  std::string_view rest = held_;
  std::string text;
  while (!rest.empty()) {
    size_t open = rest.find(kOpen);
    if (open == std::string_view::npos) {
      text += rest;
      break;
    }
    text += rest.substr(0, open);
    rest.remove_prefix(open);
    size_t close = rest.find(kClose);
    std::string_view body =
        rest.substr(kOpen.size(), close == std::string_view::npos
                                      ? std::string_view::npos
                                      : close - kOpen.size());
    size_t blockEnd = close == std::string_view::npos ? rest.size() : close + kClose.size();
    nlohmann::ordered_json call =
        nlohmann::ordered_json::parse(trimmed(body), nullptr, /*allow_exceptions=*/false);
    if (close != std::string_view::npos && call.is_object() && call.contains("name") &&
        call["name"].is_string() && call.contains("arguments") &&
        call["arguments"].is_object()) {
      r.calls.push_back({call["name"].get<std::string>(), pythonJson(call["arguments"])});
    } else {
      text += rest.substr(0, blockEnd); // not a call: text
    }
    rest.remove_prefix(blockEnd);
  }
  r.content = std::string(r.calls.empty() ? std::string_view(text) : trimmed(text));
  held_.clear();
  return r;
}

} // namespace qwen3::serve
