//===- ProtocolTest.cpp - OpenAI request checks and response shapes -------===//

#include "../Qwen3TestUtils.h"
#include "qwen3/ChatTemplate.h"
#include "qwen3/serve/Logprobs.h"
#include "qwen3/serve/Protocol.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace qwen3;
using namespace qwen3::serve;
using nlohmann::json;
using qwen3::ChatMessage;
using qwen3::renderChat;

namespace {

class ProtocolTest : public ::testing::Test {
protected:
  void SetUp() override {
    const std::string dir = test::fixturesDir() + "/tiny-bf16";
    ASSERT_TRUE(ModelConfig::load(dir, config).isOk());
    ASSERT_TRUE(Tokenizer::load(dir + "/tokenizer.json", tokenizer).isOk());
    info.id = "tiny";
    info.config = &config;
    info.tokenizer = &tokenizer;
    info.contextLength = 64;
    info.maxTokens = 32;
  }
  /// Parses `body` and expects an error with `status` naming `param`.
  void expectError(Endpoint ep, const std::string &body, int status, const std::string &param,
                   const std::string &text) {
    GenerationRequest r;
    ApiError e;
    ASSERT_FALSE(parseRequest(ep, body, info, 0, r, e)) << body;
    EXPECT_EQ(e.status, status) << body << ": " << e.message;
    EXPECT_EQ(e.param, param) << body;
    EXPECT_NE(e.message.find(text), std::string::npos) << e.message;
    json b = e.body();
    EXPECT_EQ(b["error"]["message"], e.message);
  }
  GenerationRequest parse(Endpoint ep, const std::string &body) {
    GenerationRequest r;
    ApiError e;
    EXPECT_TRUE(parseRequest(ep, body, info, 7, r, e)) << body << ": " << e.message;
    return r;
  }
  ModelConfig config;
  Tokenizer tokenizer;
  ModelInfo info;
};

const char *kChat = R"({"model": "tiny", "messages": [{"role": "user", "content": "Hi"}]})";

TEST_F(ProtocolTest, ChatRequestDefaults) {
  GenerationRequest r = parse(Endpoint::Chat, kChat);
  EXPECT_FALSE(r.promptIds.empty());
  EXPECT_FALSE(r.stream);
  EXPECT_TRUE(r.thinking);
  // generation_config.json's sampling, the request counter's seed.
  EXPECT_EQ(r.sampling.enabled, config.temperature > 0);
  EXPECT_EQ(r.sampling.seed, 7u);
  EXPECT_EQ(r.maxTokens, std::min<int64_t>(32, 64 - int64_t(r.promptIds.size())));
}

TEST_F(ProtocolTest, ChatFieldsPeopleSend) {
  GenerationRequest r = parse(Endpoint::Chat, R"({
    "model": "tiny", "stream": true, "stream_options": {"include_usage": true},
    "messages": [{"role": "system", "content": "Be brief."},
                 {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
    "max_completion_tokens": 5, "temperature": 0, "top_p": 0.5, "top_k": -1, "seed": 42,
    "stop": ["\n\n", "END"], "chat_template_kwargs": {"enable_thinking": false}, "n": 1})");
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.includeUsage);
  EXPECT_EQ(r.maxTokens, 5);
  EXPECT_FALSE(r.sampling.enabled); // temperature 0: greedy
  EXPECT_EQ(r.stop, (std::vector<std::string>{"\n\n", "END"}));
  EXPECT_FALSE(r.thinking);
  // The prompt ends with the empty think block of thinking off.
  EXPECT_NE(tokenizer.decode(r.promptIds).find("<think>\n\n</think>"), std::string::npos);
  EXPECT_FALSE(parse(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "Hi"}],
                                         "enable_thinking": false})")
                   .thinking);
}

TEST_F(ProtocolTest, CompletionPromptAsTextOrIds) {
  GenerationRequest a = parse(Endpoint::Completion, R"({"prompt": "Hello there"})");
  GenerationRequest b = parse(Endpoint::Completion, R"({"prompt": ["Hello there"]})");
  EXPECT_EQ(a.promptIds, b.promptIds);
  GenerationRequest c = parse(Endpoint::Completion, R"({"prompt": [1, 2, 3], "max_tokens": 4,
                                                        "temperature": 0.7, "top_k": 5})");
  EXPECT_EQ(c.promptIds, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_TRUE(c.sampling.enabled);
  EXPECT_EQ(c.sampling.topK, 5);
  EXPECT_FALSE(c.thinking);
  EXPECT_FALSE(c.ignoreEos);
  EXPECT_TRUE(parse(Endpoint::Completion, R"({"prompt": "x", "ignore_eos": true})").ignoreEos);
}

TEST_F(ProtocolTest, BadRequestsNameTheirField) {
  expectError(Endpoint::Chat, "{not json", 400, "", "not valid JSON");
  expectError(Endpoint::Chat, "[1]", 400, "", "JSON object");
  expectError(Endpoint::Chat, R"({"model": "other", "messages": []})", 404, "model",
              "does not exist");
  expectError(Endpoint::Chat, R"({"messages": []})", 400, "messages", "non-empty");
  expectError(Endpoint::Chat, R"({"messages": [{"role": "robot", "content": "x"}]})", 400,
              "messages", "unknown role");
  expectError(Endpoint::Chat, R"({"messages": [{"role": "user", "content": 5}]})", 400,
              "messages[0].content", "string or a list");
  expectError(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}], "n": 2})",
              400, "n", "n = 1");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "temperature": 2.5})", 400,
              "temperature", "[0, 2]");
  expectError(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}], "top_p": 0})",
              400, "top_p", "(0, 1]");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "stop": ["a","b","c","d","e"]})",
              400, "stop", "up to 4");
  expectError(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}], "stop": ""})",
              400, "stop", "1 to 256 bytes");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 0})", 400,
              "max_tokens", "positive integer");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "max_tokens": 33})", 400,
              "max_tokens", "limit of 32");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "logprobs": 3})", 400,
              "logprobs", "boolean");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "logprobs": true, "top_logprobs": 21})",
              400, "top_logprobs", "[0, 20]");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "top_logprobs": 2})", 400,
              "top_logprobs", "needs 'logprobs': true");
  expectError(Endpoint::Completion, R"({"prompt": "x", "logprobs": 6})", 400, "logprobs",
              "[0, 5]");
  expectError(Endpoint::Completion, R"({"prompt": "x", "top_logprobs": 2})", 400,
              "top_logprobs", "/v1/chat/completions");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "user", "content": "x"}], "stream_options": {}})", 400,
              "stream_options", "stream = true");
  expectError(Endpoint::Completion, R"({"prompt": [1, 999999]})", 400, "prompt",
              "token ids in [0, ");
  expectError(Endpoint::Completion, R"({"prompt": ""})", 400, "prompt", "empty");
  expectError(Endpoint::Completion, R"({"prompt": "x", "ignore_eos": 1})", 400, "ignore_eos",
              "boolean");
  std::string longPrompt = R"({"prompt": [)";
  for (int i = 0; i < 64; ++i)
    longPrompt += (i ? ",1" : "1");
  expectError(Endpoint::Completion, longPrompt + "]}", 413, "prompt", "context holds 64");
}

TEST_F(ProtocolTest, ResponseShapes) {
  Usage u{3, 2};
  json c = completionResponse(Endpoint::Chat, "chatcmpl-1", "tiny", 5, "hi", "why", "stop", u);
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["choices"][0]["message"]["content"], "hi");
  EXPECT_EQ(c["choices"][0]["message"]["reasoning_content"], "why");
  EXPECT_EQ(c["choices"][0]["finish_reason"], "stop");
  EXPECT_EQ(c["usage"]["total_tokens"], 5);
  json t = completionResponse(Endpoint::Completion, "cmpl-1", "tiny", 5, "hi", "", "length", u);
  EXPECT_EQ(t["object"], "text_completion");
  EXPECT_EQ(t["choices"][0]["text"], "hi");
  const std::string text = "x", reason = "stop";
  json k = streamChunk(Endpoint::Chat, "chatcmpl-1", "tiny", 5, &text, nullptr, true, nullptr);
  EXPECT_EQ(k["object"], "chat.completion.chunk");
  EXPECT_EQ(k["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(k["choices"][0]["delta"]["content"], "x");
  EXPECT_TRUE(k["choices"][0]["finish_reason"].is_null());
  json f = streamChunk(Endpoint::Chat, "chatcmpl-1", "tiny", 5, nullptr, nullptr, false, &reason);
  EXPECT_EQ(f["choices"][0]["finish_reason"], "stop");
  EXPECT_TRUE(f["choices"][0]["delta"].empty());
  json us = usageChunk(Endpoint::Chat, "chatcmpl-1", "tiny", 5, u);
  EXPECT_TRUE(us["choices"].empty());
  EXPECT_EQ(us["usage"]["completion_tokens"], 2);
}

} // namespace

namespace {

// Tools render into the system turn (keys in the request's order, as the
// template's tojson writes them); the assistant's calls and the tool
// responses of a history render as the template does; output calls go back
// as tool_calls with finish_reason "tool_calls".
TEST_F(ProtocolTest, ToolsRenderIntoThePromptAndCallsComeBackAsToolCalls) {
  info.contextLength = 4096;
  info.maxTokens = 16;
  const std::string tool =
      R"({"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}})";
  const std::string history =
      R"([{"role": "user", "content": "Weather in Oslo?"},
          {"role": "assistant", "content": null, "tool_calls": [{"id": "c0", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
          {"role": "tool", "tool_call_id": "c0", "content": "{\"temp\": 3}"}])";
  GenerationRequest r = parse(Endpoint::Chat, R"({"messages": )" + history +
                                                  R"(, "tools": [)" + tool + "]}");
  EXPECT_TRUE(r.parseToolCalls);
  std::vector<ChatMessage> msgs = {
      {"user", "Weather in Oslo?", std::nullopt, {}},
      {"assistant", "", std::nullopt, {{"get_weather", "{\"city\": \"Oslo\"}"}}},
      {"tool", "{\"temp\": 3}", std::nullopt, {}}};
  std::vector<int32_t> expected;
  ASSERT_TRUE(tokenizer.encode(renderChat(msgs, true, true, {tool}), expected).isOk());
  EXPECT_EQ(r.promptIds, expected);

  // tool_choice "none": no tools in the prompt, no parsing.
  GenerationRequest none = parse(Endpoint::Chat, R"({"messages": )" + history +
                                                     R"(, "tools": [)" + tool +
                                                     R"(], "tool_choice": "none"})");
  EXPECT_FALSE(none.parseToolCalls);
  std::vector<int32_t> plain;
  ASSERT_TRUE(tokenizer.encode(renderChat(msgs, true, true), plain).isOk());
  EXPECT_EQ(none.promptIds, plain);

  const std::string user = R"({"messages": [{"role": "user", "content": "x"}], )";
  expectError(Endpoint::Chat, user + R"("tools": [)" + tool + R"(], "tool_choice": "required"})",
              400, "tool_choice", "\"auto\" or \"none\"");
  expectError(Endpoint::Chat, user + R"("tools": {"type": "function"}})", 400, "tools",
              "must be a list");
  expectError(Endpoint::Chat, user + R"("tools": [{"type": "function", "function": {}}]})", 400,
              "tools[0]", "\"function\"");
  expectError(Endpoint::Completion, R"({"prompt": "x", "tools": [)" + tool + "]}", 400, "tools",
              "/v1/chat/completions");
  expectError(Endpoint::Chat,
              R"({"messages": [{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}]})",
              400, "messages[0].tool_calls[0]", "arguments");

  json resp = completionResponse(Endpoint::Chat, "x1", "tiny", 0, "", "", "stop", Usage(),
                                 {{"get_weather", "{\"city\": \"Oslo\"}"}});
  const json &choice = resp["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  EXPECT_EQ(choice["message"]["tool_calls"][0]["type"], "function");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["name"], "get_weather");
  EXPECT_EQ(choice["message"]["tool_calls"][0]["function"]["arguments"], "{\"city\": \"Oslo\"}");
  std::vector<ToolCall> calls = {{"now", "{}"}};
  json chunk = streamChunk(Endpoint::Chat, "x1", "tiny", 0, nullptr, nullptr, false, nullptr,
                           &calls);
  EXPECT_EQ(chunk["choices"][0]["delta"]["tool_calls"][0]["index"], 0);
  EXPECT_EQ(chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["name"], "now");
}

} // namespace

namespace {

TEST_F(ProtocolTest, LogprobsRequests) {
  EXPECT_EQ(parse(Endpoint::Chat, kChat).topLogprobs, -1);
  EXPECT_EQ(parse(Endpoint::Chat, R"({"messages": [{"role": "user", "content": "x"}], "logprobs": true})")
                .topLogprobs,
            0);
  EXPECT_EQ(parse(Endpoint::Chat,
                  R"({"messages": [{"role": "user", "content": "x"}], "logprobs": true, "top_logprobs": 5})")
                .topLogprobs,
            5);
  EXPECT_EQ(parse(Endpoint::Chat,
                  R"({"messages": [{"role": "user", "content": "x"}], "logprobs": false, "top_logprobs": 0})")
                .topLogprobs,
            -1);
  EXPECT_EQ(parse(Endpoint::Completion, R"({"prompt": "x", "logprobs": 2})").topLogprobs, 2);
}

// log_softmax of the logits: the chosen token's and the top ones', most
// likely first, ties to the smaller id (the engine's argmax).
TEST(Logprobs, LogSoftmaxAndTopTokens) {
  std::vector<float> logits = {1.0f, 3.0f, 3.0f, -2.0f, 0.5f};
  double z = 0;
  for (float v : logits)
    z += std::exp(double(v));
  TokenLogprob lp = tokenLogprob(logits, 4, 3);
  EXPECT_NEAR(lp.logprob, 0.5 - std::log(z), 1e-6);
  ASSERT_EQ(lp.top.size(), 3u);
  EXPECT_EQ(lp.top[0].first, 1);
  EXPECT_EQ(lp.top[1].first, 2);
  EXPECT_EQ(lp.top[2].first, 0);
  EXPECT_NEAR(lp.top[0].second, 3.0 - std::log(z), 1e-6);
  EXPECT_TRUE(tokenLogprob(logits, 0, 0).top.empty());
}

} // namespace
