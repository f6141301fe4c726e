//===- Protocol.cpp - OpenAI-compatible requests and responses ------------===//

#include "qwen3/serve/Protocol.h"

#include "qwen3/ChatTemplate.h"
#include "qwen3/serve/ToolCalls.h"

#include <cmath>

namespace qwen3::serve {

using nlohmann::json;

json ApiError::body() const {
  return {{"error",
           {{"message", message},
            {"type", type},
            {"param", param.empty() ? json(nullptr) : json(param)},
            {"code", nullptr}}}};
}

json Usage::json() const {
  return {{"prompt_tokens", promptTokens},
          {"completion_tokens", completionTokens},
          {"total_tokens", promptTokens + completionTokens},
          {"prompt_tokens_details", {{"cached_tokens", cachedTokens}}}};
}

namespace {

bool fail(ApiError &e, std::string param, std::string message, int status = 400) {
  e.status = status;
  e.param = std::move(param);
  e.message = std::move(message);
  e.type = status == 404 ? "not_found_error" : "invalid_request_error";
  return false;
}

/// A JSON number as a double, or false.
bool number(const json &v, double &out) {
  if (!v.is_number())
    return false;
  out = v.get<double>();
  return std::isfinite(out);
}

/// The text of an OpenAI message content: a string, null, or a list of
/// {"type": "text", "text": ...} parts (joined).
bool contentText(const json &c, std::string &text) {
  if (c.is_null()) {
    text.clear();
    return true;
  }
  if (c.is_string()) {
    text = c.get<std::string>();
    return true;
  }
  if (!c.is_array())
    return false;
  text.clear();
  for (const json &part : c) {
    if (!part.is_object() || !part.contains("type") || part["type"] != "text" ||
        !part.contains("text") || !part["text"].is_string())
      return false;
    text += part["text"].get<std::string>();
  }
  return true;
}

/// The request's tools, each as the chat template's `tojson` writes it
/// (keys in the request's order), and whether the output is parsed for
/// calls (tool_choice "auto", the default; "none" renders no tools).
bool parseToolsField(const std::string &body, const json &j, std::vector<std::string> &tools,
                     bool &parseCalls, ApiError &e) {
  parseCalls = false;
  std::string choice = "auto";
  if (j.contains("tool_choice") && !j["tool_choice"].is_null()) {
    if (!j["tool_choice"].is_string() ||
        (j["tool_choice"] != "auto" && j["tool_choice"] != "none"))
      return fail(e, "tool_choice",
                  "'tool_choice' must be \"auto\" or \"none\" (required and named "
                  "functions are not supported by this server)");
    choice = j["tool_choice"].get<std::string>();
  }
  if (!j.contains("tools") || j["tools"].is_null())
    return true;
  if (!j["tools"].is_array())
    return fail(e, "tools", "'tools' must be a list");
  // The order of each tool's keys is part of the prompt.
  nlohmann::ordered_json ordered = nlohmann::ordered_json::parse(body, nullptr, false);
  const auto &list = ordered["tools"];
  for (size_t i = 0; i < list.size(); ++i) {
    const auto &t = list[i];
    const std::string at = "tools[" + std::to_string(i) + "]";
    if (!t.is_object() || !t.contains("type") || t["type"] != "function" ||
        !t.contains("function") || !t["function"].is_object() ||
        !t["function"].contains("name") || !t["function"]["name"].is_string() ||
        t["function"]["name"].get<std::string>().empty())
      return fail(e, at, at + " must be {\"type\": \"function\", \"function\": {\"name\": "
                             "..., ...}}");
    if (choice == "auto")
      tools.push_back(pythonJson(t));
  }
  parseCalls = !tools.empty();
  return true;
}

bool parseMessagesField(const json &j, const ModelInfo &model, bool thinking,
                        const std::vector<std::string> &tools, std::vector<int32_t> &ids,
                        ApiError &e) {
  if (!j.contains("messages"))
    return fail(e, "messages", "'messages' is required");
  const json &ms = j["messages"];
  if (!ms.is_array() || ms.empty())
    return fail(e, "messages", "'messages' must be a non-empty list");
  // Normalized to the form parseMessages reads (string contents).
  json norm = json::array();
  for (size_t i = 0; i < ms.size(); ++i) {
    const json &m = ms[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      return fail(e, at + ".role", at + " needs a string 'role'");
    std::string text;
    if (!contentText(m.contains("content") ? m["content"] : json(nullptr), text))
      return fail(e, at + ".content",
                  at + ".content must be a string or a list of text parts");
    json n = {{"role", m["role"]}, {"content", text}};
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
      n["reasoning_content"] = m["reasoning_content"];
    if (m.contains("tool_calls") && !m["tool_calls"].is_null()) {
      const json &calls = m["tool_calls"];
      if (m["role"] != "assistant" || !calls.is_array())
        return fail(e, at + ".tool_calls", at + ".tool_calls is a list, on assistant messages");
      json normCalls = json::array();
      for (size_t c = 0; c < calls.size(); ++c) {
        const std::string cat = at + ".tool_calls[" + std::to_string(c) + "]";
        const json &call = calls[c];
        const json *fn = call.is_object() && call.contains("function") ? &call["function"]
                                                                       : nullptr;
        if (!fn || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string() ||
            !fn->contains("arguments") || !(*fn)["arguments"].is_string())
          return fail(e, cat, cat + " must be {\"type\": \"function\", \"function\": "
                                    "{\"name\": ..., \"arguments\": \"<JSON text>\"}}");
        normCalls.push_back({{"name", (*fn)["name"]}, {"arguments", (*fn)["arguments"]}});
      }
      n["tool_calls"] = std::move(normCalls);
    }
    norm.push_back(std::move(n));
  }
  std::vector<ChatMessage> messages;
  if (tile_runtime::Status st = parseMessages(norm.dump(), "messages", messages); !st)
    return fail(e, "messages", st.message());
  std::string prompt = renderChat(messages, /*addGenerationPrompt=*/true, thinking, tools);
  if (tile_runtime::Status st = model.tokenizer->encode(prompt, ids); !st)
    return fail(e, "messages", st.message());
  return true;
}

bool parsePromptField(const json &j, const ModelInfo &model, std::vector<int32_t> &ids,
                      ApiError &e) {
  if (!j.contains("prompt"))
    return fail(e, "prompt", "'prompt' is required");
  json p = j["prompt"];
  // A list of one string is the same request; a list of ids is the prompt
  // already tokenized.
  if (p.is_array() && p.size() == 1 && p[0].is_string())
    p = p[0];
  if (p.is_string()) {
    if (tile_runtime::Status st = model.tokenizer->encode(p.get<std::string>(), ids); !st)
      return fail(e, "prompt", st.message());
    return true;
  }
  if (p.is_array() && !p.empty()) {
    for (const json &t : p) {
      if (!t.is_number_integer() || t.get<int64_t>() < 0 ||
          t.get<int64_t>() >= model.config->vocabSize)
        return fail(e, "prompt",
                    "'prompt' as a list holds token ids in [0, " +
                        std::to_string(model.config->vocabSize) + ")");
      ids.push_back(static_cast<int32_t>(t.get<int64_t>()));
    }
    return true;
  }
  return fail(e, "prompt", "'prompt' must be a string or a list of token ids (one prompt)");
}

} // namespace

bool parseRequest(Endpoint endpoint, const std::string &body, const ModelInfo &model,
                  uint64_t defaultSeed, GenerationRequest &r, ApiError &e) {
  r = GenerationRequest();
  r.endpoint = endpoint;
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded())
    return fail(e, "", "the request body is not valid JSON");
  if (!j.is_object())
    return fail(e, "", "the request body must be a JSON object");
  auto has = [&](const char *k) { return j.contains(k) && !j[k].is_null(); };

  if (has("model")) {
    if (!j["model"].is_string())
      return fail(e, "model", "'model' must be a string");
    if (j["model"] != model.id)
      return fail(e, "model",
                  "the model '" + j["model"].get<std::string>() + "' does not exist (this "
                  "server serves '" + model.id + "')", 404);
  }
  if (has("n") && !(j["n"].is_number_integer() && j["n"].get<int64_t>() == 1))
    return fail(e, "n", "only n = 1 is supported");
  if (has("stream")) {
    if (!j["stream"].is_boolean())
      return fail(e, "stream", "'stream' must be a boolean");
    r.stream = j["stream"].get<bool>();
  }
  if (has("stream_options")) {
    const json &so = j["stream_options"];
    if (!so.is_object())
      return fail(e, "stream_options", "'stream_options' must be an object");
    if (!r.stream)
      return fail(e, "stream_options", "'stream_options' is only allowed with stream = true");
    if (so.contains("include_usage")) {
      if (!so["include_usage"].is_boolean())
        return fail(e, "stream_options.include_usage", "'include_usage' must be a boolean");
      r.includeUsage = so["include_usage"].get<bool>();
    }
  }
  if (endpoint == Endpoint::Chat) {
    if (has("logprobs")) {
      if (!j["logprobs"].is_boolean())
        return fail(e, "logprobs", "'logprobs' must be a boolean");
      if (j["logprobs"].get<bool>())
        r.topLogprobs = 0;
    }
    if (has("top_logprobs")) {
      const json &t = j["top_logprobs"];
      if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() > 20)
        return fail(e, "top_logprobs", "'top_logprobs' must be an integer in [0, 20]");
      if (r.topLogprobs < 0 && t.get<int64_t>() > 0)
        return fail(e, "top_logprobs", "'top_logprobs' needs 'logprobs': true");
      if (r.topLogprobs >= 0)
        r.topLogprobs = static_cast<int>(t.get<int64_t>());
    }
  } else {
    if (has("top_logprobs"))
      return fail(e, "top_logprobs", "'top_logprobs' goes with /v1/chat/completions "
                                     "(completions take 'logprobs': N)");
    if (has("logprobs")) {
      const json &t = j["logprobs"];
      if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() > 5)
        return fail(e, "logprobs", "'logprobs' must be an integer in [0, 5]");
      r.topLogprobs = static_cast<int>(t.get<int64_t>());
    }
  }
  if (endpoint == Endpoint::Completion)
    for (const char *k : {"tools", "tool_choice"})
      if (has(k))
        return fail(e, k, std::string("'") + k + "' goes with /v1/chat/completions");
  if (endpoint == Endpoint::Completion)
    for (const char *k : {"echo", "suffix"})
      if (has(k) && !(j[k].is_boolean() && !j[k].get<bool>()) &&
          !(j[k].is_string() && j[k].get<std::string>().empty()))
        return fail(e, k, std::string("'") + k + "' is not supported by this server");
  if (has("ignore_eos")) {
    if (!j["ignore_eos"].is_boolean())
      return fail(e, "ignore_eos", "'ignore_eos' must be a boolean");
    r.ignoreEos = j["ignore_eos"].get<bool>();
  }
  if (has("best_of") && !(j["best_of"].is_number_integer() && j["best_of"].get<int64_t>() == 1))
    return fail(e, "best_of", "only best_of = 1 is supported");

  // Sampling: generation_config.json's defaults, then the request's.
  const ModelConfig &c = *model.config;
  double temperature = c.temperature, topP = c.topP;
  int64_t topK = c.topK;
  if (has("temperature") && (!number(j["temperature"], temperature) || temperature < 0 ||
                             temperature > 2))
    return fail(e, "temperature", "'temperature' must be a number in [0, 2]");
  if (has("top_p") && (!number(j["top_p"], topP) || !(topP > 0 && topP <= 1)))
    return fail(e, "top_p", "'top_p' must be a number in (0, 1]");
  if (has("top_k")) {
    if (!j["top_k"].is_number_integer() || j["top_k"].get<int64_t>() < -1 ||
        j["top_k"].get<int64_t>() > (int64_t(1) << 24))
      return fail(e, "top_k", "'top_k' must be an integer, -1 or 0 (off) up to 2^24");
    topK = std::max<int64_t>(0, j["top_k"].get<int64_t>());
  }
  uint64_t seed = defaultSeed;
  if (has("seed")) {
    if (!j["seed"].is_number_integer())
      return fail(e, "seed", "'seed' must be an integer");
    seed = static_cast<uint64_t>(j["seed"].get<int64_t>());
  }
  // Below 1e-5 the kernel's f32 scale would overflow: greedy, as vLLM
  // treats such temperatures.
  r.sampling.enabled = temperature >= 1e-5;
  r.sampling.temperature = r.sampling.enabled ? temperature : 1.0;
  r.sampling.topK = topK;
  r.sampling.topP = topP;
  r.sampling.seed = seed;

  if (has("stop")) {
    const json &s = j["stop"];
    if (s.is_string()) {
      r.stop.push_back(s.get<std::string>());
    } else if (s.is_array() && s.size() <= 4) {
      for (const json &x : s) {
        if (!x.is_string())
          return fail(e, "stop", "'stop' must be a string or a list of up to 4 strings");
        r.stop.push_back(x.get<std::string>());
      }
    } else {
      return fail(e, "stop", "'stop' must be a string or a list of up to 4 strings");
    }
    for (const std::string &x : r.stop)
      if (x.empty() || x.size() > 256)
        return fail(e, "stop", "stop strings must hold 1 to 256 bytes");
  }

  // Thinking: chat_template_kwargs.enable_thinking, or enable_thinking.
  if (endpoint == Endpoint::Chat) {
    const json *flag = nullptr;
    if (has("chat_template_kwargs")) {
      if (!j["chat_template_kwargs"].is_object())
        return fail(e, "chat_template_kwargs", "'chat_template_kwargs' must be an object");
      if (j["chat_template_kwargs"].contains("enable_thinking"))
        flag = &j["chat_template_kwargs"]["enable_thinking"];
    }
    if (!flag && has("enable_thinking"))
      flag = &j["enable_thinking"];
    if (flag) {
      if (!flag->is_boolean())
        return fail(e, "enable_thinking", "'enable_thinking' must be a boolean");
      r.thinking = flag->get<bool>();
    }
    std::vector<std::string> tools;
    if (!parseToolsField(body, j, tools, r.parseToolCalls, e))
      return false;
    if (!parseMessagesField(j, model, r.thinking, tools, r.promptIds, e))
      return false;
  } else {
    r.thinking = false;
    if (!parsePromptField(j, model, r.promptIds, e))
      return false;
  }
  const std::string promptField = endpoint == Endpoint::Chat ? "messages" : "prompt";
  if (r.promptIds.empty())
    return fail(e, promptField, "the prompt is empty");
  const int64_t promptLen = static_cast<int64_t>(r.promptIds.size());
  if (promptLen >= model.contextLength)
    return fail(e, promptField,
                "the prompt has " + std::to_string(promptLen) +
                    " tokens; this server's context holds " +
                    std::to_string(model.contextLength) + " (prompt and completion)",
                413);

  int64_t maxTokens = std::min(model.maxTokens, model.contextLength - promptLen);
  for (const char *k : {"max_completion_tokens", "max_tokens"}) {
    if (!has(k))
      continue;
    if (!j[k].is_number_integer() || j[k].get<int64_t>() < 1)
      return fail(e, k, std::string("'") + k + "' must be a positive integer");
    const int64_t want = j[k].get<int64_t>();
    if (want > model.maxTokens)
      return fail(e, k,
                  std::string("'") + k + "' " + std::to_string(want) +
                      " exceeds this server's limit of " + std::to_string(model.maxTokens));
    maxTokens = std::min(want, model.contextLength - promptLen);
    break;
  }
  r.maxTokens = maxTokens;
  return true;
}

namespace {
const char *objectName(Endpoint e, bool chunk) {
  if (e == Endpoint::Chat)
    return chunk ? "chat.completion.chunk" : "chat.completion";
  return "text_completion";
}
} // namespace

static json toolCallsJson(const std::string &id, const std::vector<ToolCall> &calls, bool indexed) {
  json list = json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    json c = {{"id", "call_" + id + "_" + std::to_string(i)},
              {"type", "function"},
              {"function", {{"name", calls[i].name}, {"arguments", calls[i].arguments}}}};
    if (indexed)
      c["index"] = i;
    list.push_back(std::move(c));
  }
  return list;
}

json completionResponse(Endpoint endpoint, const std::string &id, const std::string &model,
                        int64_t created, const std::string &content,
                        const std::string &reasoning, const std::string &finishReason,
                        const Usage &usage, const std::vector<ToolCall> &toolCalls,
                        const json &logprobs) {
  json choice = {{"index", 0},
                 {"finish_reason", toolCalls.empty() ? finishReason : "tool_calls"},
                 {"logprobs", logprobs}};
  if (endpoint == Endpoint::Chat) {
    json message = {{"role", "assistant"}, {"content", content}};
    if (!reasoning.empty())
      message["reasoning_content"] = reasoning;
    if (!toolCalls.empty()) {
      if (content.empty())
        message["content"] = nullptr;
      message["tool_calls"] = toolCallsJson(id, toolCalls, /*indexed=*/false);
    }
    choice["message"] = std::move(message);
  } else {
    choice["text"] = content;
  }
  return {{"id", id},
          {"object", objectName(endpoint, false)},
          {"created", created},
          {"model", model},
          {"choices", json::array({std::move(choice)})},
          {"usage", usage.json()}};
}

json streamChunk(Endpoint endpoint, const std::string &id, const std::string &model,
                 int64_t created, const std::string *content, const std::string *reasoning,
                 bool roleChunk, const std::string *finishReason,
                 const std::vector<ToolCall> *toolCalls, const json &logprobs) {
  json choice = {{"index", 0},
                 {"finish_reason", finishReason ? json(*finishReason) : json(nullptr)},
                 {"logprobs", logprobs}};
  if (endpoint == Endpoint::Chat) {
    json delta = json::object();
    if (roleChunk)
      delta["role"] = "assistant";
    if (content)
      delta["content"] = *content;
    if (reasoning)
      delta["reasoning_content"] = *reasoning;
    if (toolCalls && !toolCalls->empty())
      delta["tool_calls"] = toolCallsJson(id, *toolCalls, /*indexed=*/true);
    choice["delta"] = std::move(delta);
  } else {
    choice["text"] = content ? *content : std::string();
  }
  return {{"id", id},
          {"object", objectName(endpoint, true)},
          {"created", created},
          {"model", model},
          {"choices", json::array({std::move(choice)})}};
}

json usageChunk(Endpoint endpoint, const std::string &id, const std::string &model,
                int64_t created, const Usage &usage) {
  return {{"id", id},
          {"object", objectName(endpoint, true)},
          {"created", created},
          {"model", model},
          {"choices", json::array()},
          {"usage", usage.json()}};
}

} // namespace qwen3::serve
