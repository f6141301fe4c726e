//===- ToolCallsTest.cpp - <tool_call> parsing and tojson's JSON ----------===//

#include "qwen3/serve/ToolCalls.h"

#include <gtest/gtest.h>

using namespace qwen3::serve;

namespace {

TEST(PythonJson, WritesJsonDumpsSeparatorsKeyOrderAndRawUnicode) {
  auto v = nlohmann::ordered_json::parse(
      R"({"z": 1, "a": [true, null, 2.5, "x\"y\\\n\u0001"], "ü": {"b": {}, "a": []}})");
  EXPECT_EQ(pythonJson(v),
            "{\"z\": 1, \"a\": [true, null, 2.5, \"x\\\"y\\\\\\n\\u0001\"], "
            "\"\xC3\xBC\": {\"b\": {}, \"a\": []}}");
}

TEST(ToolCallStream, ReleasesTextUntilACallThenParsesTheCalls) {
  ToolCallStream s;
  std::string out;
  // A tag split over tokens is held until it is one.
  for (const char *piece : {"Let me ", "check.\n<tool", "_call>\n{\"name\": \"get_weather\", ",
                            "\"arguments\": {\"city\": \"Z\xC3\xBCrich\"}}\n</tool_call>\n",
                            "<tool_call>\n{\"name\": \"now\", \"arguments\": {}}\n</tool_call>"})
    out += s.feed(piece);
  EXPECT_EQ(out, "Let me check.\n");
  ToolCallStream::Result r = s.finish();
  ASSERT_EQ(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[0].name, "get_weather");
  EXPECT_EQ(r.calls[0].arguments, "{\"city\": \"Z\xC3\xBCrich\"}");
  EXPECT_EQ(r.calls[1].name, "now");
  EXPECT_EQ(r.calls[1].arguments, "{}");
  EXPECT_EQ(r.content, "");
}

TEST(ToolCallStream, TextThatOnlyLooksLikeATagIsReleased) {
  ToolCallStream s;
  std::string out = s.feed("a < b and <tool");
  EXPECT_EQ(out, "a < b and ");
  out += s.feed("box> too");
  EXPECT_EQ(out, "a < b and <toolbox> too");
  ToolCallStream::Result r = s.finish();
  EXPECT_TRUE(r.calls.empty());
  EXPECT_EQ(r.content, "");
}

TEST(ToolCallStream, ABlockThatIsNotACallStaysText) {
  for (const char *bad :
       {"<tool_call>\n{not json}\n</tool_call>", "<tool_call>\n{\"name\": 3}\n</tool_call>",
        "<tool_call>\n{\"name\": \"f\", \"arguments\": \"x\"}\n</tool_call>",
        "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}"}) { // never closed
    ToolCallStream s;
    std::string out = s.feed(bad);
    ToolCallStream::Result r = s.finish();
    EXPECT_TRUE(r.calls.empty()) << bad;
    EXPECT_EQ(out + r.content, bad);
  }
}

TEST(ToolCallStream, TextAroundCallsIsKept) {
  ToolCallStream s;
  std::string out =
      s.feed("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"k\": [1, 2]}}\n</tool_call>\n"
             "\nDone.");
  ToolCallStream::Result r = s.finish();
  EXPECT_EQ(out, "");
  ASSERT_EQ(r.calls.size(), 1u);
  EXPECT_EQ(r.calls[0].arguments, "{\"k\": [1, 2]}");
  EXPECT_EQ(r.content, "Done.");
}

} // namespace
