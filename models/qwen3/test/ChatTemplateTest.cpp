//===- ChatTemplateTest.cpp - ChatML rendering vs the Jinja template ------===//

#include "Qwen3TestUtils.h"
#include "qwen3/ChatTemplate.h"
#include "qwen3/serve/ToolCalls.h"

#include <gtest/gtest.h>

using namespace qwen3;

namespace {

std::vector<ChatMessage> messagesOf(const nlohmann::json &j) {
  std::vector<ChatMessage> msgs;
  EXPECT_TRUE(parseMessages(j.dump(), "case", msgs).isOk());
  return msgs;
}

} // namespace

// Hugging Face's renderings (with the generation prompt).
TEST(ChatTemplate, MatchesHuggingFaceCases) {
  std::string path = test::sharedDir() + "/tokenizer_cases.jsonl";
  QWEN3_REQUIRE_SHARED(path);
  int checked = 0;
  for (const auto &c : test::readJsonl(path)) {
    if (!c.contains("messages"))
      continue;
    EXPECT_EQ(renderChat(messagesOf(c["messages"]), true,
                         c["enable_thinking"].get<bool>()),
              c["rendered"].get<std::string>());
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

// Multi-turn histories, reasoning, tools, system messages: rendered by the
// template itself with Jinja2 (tools/make_chat_cases.py, committed).
// With tools, the signatures are as the template's tojson wrote them
// ("tools_json"), and serve::pythonJson must write the same text from the
// tool in its key order.
TEST(ChatTemplate, MatchesJinjaRenderings) {
  auto cases = test::readJsonl(test::fixturesDir() + "/chat_cases.jsonl");
  ASSERT_EQ(cases.size(), 72u);
  int withTools = 0;
  for (const auto &c : cases) {
    std::vector<std::string> tools;
    if (c.contains("tools_json")) {
      ++withTools;
      for (const auto &t : c["tools_json"]) {
        tools.push_back(t.get<std::string>());
        EXPECT_EQ(serve::pythonJson(nlohmann::ordered_json::parse(tools.back())),
                  tools.back());
      }
    }
    EXPECT_EQ(renderChat(messagesOf(c["messages"]),
                         c["add_generation_prompt"].get<bool>(),
                         c["enable_thinking"].get<bool>(), tools),
              c["rendered"].get<std::string>())
        << c["messages"].dump();
  }
  EXPECT_EQ(withTools, 12);
}

TEST(ChatTemplate, RejectsBadMessages) {
  std::vector<ChatMessage> msgs;
  auto expectError = [&](const std::string &json, const std::string &part) {
    auto st = parseMessages(json, "m.json", msgs);
    ASSERT_FALSE(st.isOk()) << json;
    EXPECT_NE(st.message().find(part), std::string::npos) << st.message();
    EXPECT_EQ(st.message().find('\n'), std::string::npos);
  };
  expectError("[", "m.json: malformed JSON");
  expectError("{}", "non-empty JSON list");
  expectError("[]", "non-empty JSON list");
  expectError(R"([{"role": "user"}])", "message 0 needs");
  expectError(R"([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}])",
              "message 1: unknown role 'bot'");
  expectError(R"([{"role": "user", "content": 3}])", "message 0 needs");
}
