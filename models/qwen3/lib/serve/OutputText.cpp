//===- OutputText.cpp - generated tokens to the text a client sees --------===//

#include "qwen3/serve/OutputText.h"

namespace qwen3::serve {

namespace {
const std::string kOpen = "<think>", kClose = "</think>";

/// The length of the longest suffix of `text` that is a proper prefix of
/// one of `words`.
size_t heldPrefix(const std::string &text, const std::vector<std::string> &words) {
  size_t best = 0;
  for (const std::string &w : words)
    for (size_t n = std::min(text.size(), w.size() - 1); n > best; --n)
      if (text.compare(text.size() - n, n, w, 0, n) == 0) {
        best = n;
        break;
      }
  return best;
}
} // namespace

OutputText::OutputText(std::vector<std::string> stops, bool splitReasoning)
    : stops_(std::move(stops)), phase_(splitReasoning ? Phase::Start : Phase::Content) {}

OutputText::Delta OutputText::feed(std::string_view bytes) {
  Delta out;
  if (stopped_)
    return out;
  held_ += utf8_.feed(bytes);
  // The earliest stop string ends the text.
  size_t at = std::string::npos;
  for (const std::string &s : stops_)
    at = std::min(at, held_.find(s));
  if (at != std::string::npos) {
    stopped_ = true;
    release(held_.substr(0, at), out);
    split("", out, /*final=*/true);
    held_.clear();
    return out;
  }
  const size_t keep = heldPrefix(held_, stops_);
  release(held_.substr(0, held_.size() - keep), out);
  held_.erase(0, held_.size() - keep);
  return out;
}

OutputText::Delta OutputText::finish() {
  Delta out;
  if (stopped_)
    return out;
  held_ += utf8_.finish();
  release(held_, out);
  held_.clear();
  split("", out, /*final=*/true);
  return out;
}

void OutputText::release(std::string text, Delta &out) { split(std::move(text), out, false); }

void OutputText::split(std::string text, Delta &out, bool final) {
  std::string s = tagHeld_ + text;
  tagHeld_.clear();
  while (!s.empty()) {
    if (phase_ == Phase::Start) {
      // Thinking output opens with <think> (after any whitespace); other
      // output has no reasoning.
      size_t first = s.find_first_not_of(" \n");
      if (first == std::string::npos) {
        if (!final) {
          tagHeld_ = s;
          return;
        }
        phase_ = Phase::Content;
        continue;
      }
      std::string rest = s.substr(first);
      if (rest.compare(0, kOpen.size(), kOpen) == 0) {
        phase_ = Phase::Reasoning;
        trimReasoningStart_ = true;
        s = rest.substr(kOpen.size());
        continue;
      }
      if (!final && kOpen.compare(0, rest.size(), rest) == 0) {
        tagHeld_ = s; // may still become <think>
        return;
      }
      phase_ = Phase::Content;
      continue;
    }
    if (phase_ == Phase::Reasoning) {
      if (trimReasoningStart_) { // the newline after <think>
        size_t first = s.find_first_not_of('\n');
        if (first == std::string::npos)
          return;
        s.erase(0, first);
        trimReasoningStart_ = false;
      }
      size_t close = s.find(kClose);
      if (close != std::string::npos) {
        std::string r = s.substr(0, close);
        while (!r.empty() && r.back() == '\n')
          r.pop_back();
        out.reasoning += r;
        phase_ = Phase::Content;
        trimContentStart_ = true;
        s = s.substr(close + kClose.size());
        continue;
      }
      size_t keep = final ? 0 : heldPrefix(s, {kClose});
      // Newlines before a possible </think> are held too: the reasoning
      // drops the ones that end it.
      size_t end = s.size() - keep;
      while (!final && end > 0 && s[end - 1] == '\n')
        --end;
      out.reasoning += s.substr(0, end);
      tagHeld_ = s.substr(end);
      return;
    }
    // Content.
    if (trimContentStart_) {
      size_t first = s.find_first_not_of('\n');
      if (first == std::string::npos)
        return;
      s.erase(0, first);
      trimContentStart_ = false;
    }
    out.content += s;
    return;
  }
}

} // namespace qwen3::serve
