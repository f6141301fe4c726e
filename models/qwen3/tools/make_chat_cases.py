#!/usr/bin/env python3
"""Renders conversations with Qwen3's own chat template (Jinja2, configured as
transformers configures it) into test/fixtures/chat_cases.jsonl, the oracle
for ChatTemplateTest beyond the shared cases.

    python3 models/qwen3/tools/make_chat_cases.py ../shared/qwen3/tokenizer/tokenizer_config.json \
        > models/qwen3/test/fixtures/chat_cases.jsonl
"""
import json
import sys

import jinja2

config = json.load(open(sys.argv[1]))
env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True,
                         extensions=["jinja2.ext.loopcontrols"])
env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False)
template = env.from_string(config["chat_template"])

S = {"role": "system", "content": "You are a terse assistant."}
U1 = {"role": "user", "content": "What is 2+2?"}
A1 = {"role": "assistant", "content": "4."}
A1T = {"role": "assistant", "content": "<think>\nAdd them.\n</think>\n\n4."}
U2 = {"role": "user", "content": "And 3+3?"}
A2R = {"role": "assistant", "content": "6.", "reasoning_content": "Add again."}
T1 = {"role": "tool", "content": "{\"temp\": 21}"}
T2 = {"role": "tool", "content": "{\"wind\": 3}"}
UTR = {"role": "user", "content": "<tool_response>\nok\n</tool_response>"}
S2 = {"role": "system", "content": "Mid-conversation system note."}

conversations = [
    [U1], [S, U1], [S, U1, A1, U2], [S, U1, A1T, U2], [U1, A1T],
    [U1, A1T, U2, A2R], [U1, A2R], [S, U1, A1, U2, A1T], [U1, T1, T2],
    [U1, A1, T1, U2], [U1, UTR, A1T], [U1, S2, A1, U2],
    [{"role": "user", "content": "\n\nleading newlines\n"}],
    [{"role": "user", "content": "ünïcödé 你好 😀"}],
    [U1, {"role": "assistant", "content": "<think>\n\n</think>\n\n\n4."}, U2],
]
for msgs in conversations:
    for gen in (True, False):
        for think in (False, True):
            rendered = template.render(messages=msgs, add_generation_prompt=gen,
                                       enable_thinking=think)
            print(json.dumps({"messages": msgs, "add_generation_prompt": gen,
                              "enable_thinking": think, "rendered": rendered},
                             ensure_ascii=False))

# Tools: their signatures in the system turn (keys in the order given, as
# `tojson` writes them: "tools_json"), the assistant's calls, the responses.
TOOLS = [
    {"type": "function", "function": {
        "name": "get_weather", "description": "Current weather in a city (°C).",
        "parameters": {"type": "object", "required": ["city"],
                       "properties": {"city": {"type": "string"},
                                      "unit": {"type": "string", "enum": ["c", "f"]}}}}},
    {"type": "function", "function": {"name": "now", "parameters": {}}},
]
CALL = {"name": "get_weather", "arguments": json.dumps({"city": "Zürich", "unit": "c"},
                                                       ensure_ascii=False)}
CALL2 = {"name": "now", "arguments": "{}"}
AC = {"role": "assistant", "content": "", "tool_calls": [CALL]}
ACC = {"role": "assistant", "content": "Let me check.", "tool_calls": [CALL, CALL2]}
ACT = {"role": "assistant", "content": "<think>\nNeed the weather.\n</think>\n\n",
       "tool_calls": [CALL]}
tool_conversations = [
    [U1], [S, U1], [U1, AC, T1], [S, U1, ACC, T1, T2], [U1, ACT, T1],
    [U1, AC, T1, {"role": "assistant", "content": "21 degrees."}, U2],
]
for msgs in tool_conversations:
    for think in (False, True):
        rendered = template.render(messages=msgs, tools=TOOLS, add_generation_prompt=True,
                                   enable_thinking=think)
        print(json.dumps({"messages": msgs, "add_generation_prompt": True,
                          "enable_thinking": think,
                          "tools_json": [json.dumps(t, ensure_ascii=False) for t in TOOLS],
                          "rendered": rendered}, ensure_ascii=False))
