//===- OutputTextTest.cpp - stop strings and the reasoning split ----------===//

#include "qwen3/serve/OutputText.h"

#include <gtest/gtest.h>

using qwen3::serve::OutputText;

namespace {

/// Feeds `pieces` one by one, then finishes; returns (reasoning, content)
/// and every step's content delta.
struct Released {
  std::string reasoning, content;
  std::vector<std::string> contentSteps;
  bool stopped = false;
};
Released feedAll(OutputText &t, const std::vector<std::string> &pieces) {
  Released r;
  for (const std::string &p : pieces) {
    OutputText::Delta d = t.feed(p);
    r.reasoning += d.reasoning;
    r.content += d.content;
    r.contentSteps.push_back(d.content);
  }
  OutputText::Delta d = t.finish();
  r.reasoning += d.reasoning;
  r.content += d.content;
  r.stopped = t.stopped();
  return r;
}

TEST(OutputText, PlainTextPassesThroughAsItComes) {
  OutputText t({}, false);
  Released r = feedAll(t, {"Hel", "lo", " world"});
  EXPECT_EQ(r.content, "Hello world");
  EXPECT_EQ(r.contentSteps, (std::vector<std::string>{"Hel", "lo", " world"}));
  EXPECT_FALSE(r.stopped);
}

TEST(OutputText, StopStringAcrossTokensEndsTheTextBeforeIt) {
  OutputText t({"END"}, false);
  Released r = feedAll(t, {"abc E", "N", "D more", "ignored"});
  EXPECT_EQ(r.content, "abc ");
  EXPECT_TRUE(r.stopped);
  // "E" and "EN" were held back until they could no longer be anything else.
  EXPECT_EQ(r.contentSteps, (std::vector<std::string>{"abc ", "", "", ""}));
}

TEST(OutputText, AHeldPrefixThatIsNotAStopIsReleased) {
  OutputText t({"END", "xyz"}, false);
  Released r = feedAll(t, {"E", "x", "y!"});
  EXPECT_EQ(r.content, "Exy!");
  EXPECT_FALSE(r.stopped);
  OutputText u({"END"}, false);
  EXPECT_EQ(feedAll(u, {"tail E"}).content, "tail E"); // finish releases it
}

TEST(OutputText, TheEarliestOfSeveralStopsWins) {
  OutputText t({"bb", "a"}, false);
  EXPECT_EQ(feedAll(t, {"xxbbxa"}).content, "xx");
}

TEST(OutputText, IncompleteUtf8WaitsForItsLastByte) {
  OutputText t({}, false);
  // U+00E9 is C3 A9.
  OutputText::Delta d1 = t.feed("caf\xC3");
  OutputText::Delta d2 = t.feed("\xA9!");
  EXPECT_EQ(d1.content, "caf");
  EXPECT_EQ(d2.content, "\xC3\xA9!");
}

TEST(OutputText, ThinkingBlockBecomesTheReasoning) {
  OutputText t({}, true);
  Released r = feedAll(t, {"<think>", "\nLet me see", ".\n", "</think>", "\n\n", "The answer", "."});
  EXPECT_EQ(r.reasoning, "Let me see.");
  EXPECT_EQ(r.content, "The answer.");
}

TEST(OutputText, TagsSplitAcrossTokensAreRecognised) {
  OutputText t({}, true);
  Released r = feedAll(t, {"<thi", "nk>x", "y</th", "ink>z"});
  EXPECT_EQ(r.reasoning, "xy");
  EXPECT_EQ(r.content, "z");
}

TEST(OutputText, OutputWithoutAThinkBlockIsAllContent) {
  OutputText t({}, true);
  Released r = feedAll(t, {"<b>", "Hello"});
  EXPECT_EQ(r.reasoning, "");
  EXPECT_EQ(r.content, "<b>Hello");
}

TEST(OutputText, AnUnclosedThinkBlockIsAllReasoning) {
  OutputText t({}, true);
  Released r = feedAll(t, {"<think>", "\nstill thinking"});
  EXPECT_EQ(r.reasoning, "still thinking");
  EXPECT_EQ(r.content, "");
}

TEST(OutputText, AStopStringInsideTheReasoningEndsIt) {
  OutputText t({"STOP"}, true);
  Released r = feedAll(t, {"<think>", "\nab ST", "OP cd"});
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.reasoning, "ab ");
  EXPECT_EQ(r.content, "");
}

TEST(OutputText, WithoutTheSplitTagsStayInTheContent) {
  OutputText t({}, false);
  EXPECT_EQ(feedAll(t, {"<think>", "x", "</think>", "y"}).content, "<think>x</think>y");
}

} // namespace
