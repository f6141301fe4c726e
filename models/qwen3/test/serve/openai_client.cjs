// qwen3-serve driven by the official `openai` client package: chat, streaming,
// usage, stop strings, thinking, and the errors the client raises.
//
//     node openai_client.cjs BASE_URL     (the openai package on NODE_PATH)
const OpenAI = require("openai");

async function status(fn) {
  try { await fn(); return 200; } catch (e) { return e.status; }
}

async function main() {
const client = new OpenAI({ baseURL: process.argv[2], apiKey: "unused" });
let failed = 0;
function check(cond, what) {
  console.log((cond ? "ok   " : "FAIL ") + what);
  if (!cond) failed++;
}

const messages = [{ role: "user", content: "Hello, who are you?" }];

const models = await client.models.list();
check(models.data.length === 1 && models.data[0].id === "tiny", "models.list");

const whole = await client.chat.completions.create({
  model: "tiny", messages, max_tokens: 10, temperature: 0,
});
const msg = whole.choices[0].message;
check(whole.object === "chat.completion" && msg.role === "assistant" &&
      typeof msg.content === "string", "chat: an assistant message");
check(["stop", "length"].includes(whole.choices[0].finish_reason), "chat: a finish reason");
check(whole.usage.prompt_tokens > 0 &&
      whole.usage.total_tokens === whole.usage.prompt_tokens + whole.usage.completion_tokens,
      "chat: usage");

const stream = await client.chat.completions.create({
  model: "tiny", messages, max_tokens: 10, temperature: 0, stream: true,
  stream_options: { include_usage: true },
});
let text = "", reasoning = "", usage = null, chunks = 0;
for await (const chunk of stream) {
  chunks++;
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    text += c.delta.content ?? "";
    reasoning += c.delta.reasoning_content ?? "";
  }
}
check(chunks > 1 && text + reasoning === (msg.content ?? "") + (msg.reasoning_content ?? ""),
      "chat stream: the same text as the whole response");
check(usage && usage.completion_tokens === whole.usage.completion_tokens,
      "chat stream: usage in the last chunk");

// Stop strings: a piece of the unstopped text ends the stopped one before it.
const base = await client.completions.create({
  model: "tiny", prompt: [17, 900, 4, 2000, 55], max_tokens: 16, temperature: 0,
});
const full = base.choices[0].text;
const stop = [...full].slice(4, 6).join("");
const stopped = await client.completions.create({
  model: "tiny", prompt: [17, 900, 4, 2000, 55], max_tokens: 16, temperature: 0, stop: [stop],
});
check(stop.length > 0 && stopped.choices[0].text === full.slice(0, full.indexOf(stop)) &&
      stopped.choices[0].finish_reason === "stop",
      `completions: stop ${JSON.stringify(stop)} ends the text before it`);

// Thinking off through chat_template_kwargs (vLLM's spelling) and on.
for (const enable_thinking of [false, true]) {
  const r = await client.chat.completions.create({
    model: "tiny", messages, max_tokens: 4, temperature: 0,
    chat_template_kwargs: { enable_thinking },
  });
  check(r.choices[0].message.role === "assistant", `enable_thinking ${enable_thinking}: served`);
}

// Tools, with a history of a call and its response, as the client sends
// them: served (the tiny model's noise calls nothing: no tool_calls), and a
// tool_choice the server does not support is a 400.
const tools = [{ type: "function", function: {
  name: "get_weather", description: "Weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } } } } }];
const withCall = [
  { role: "user", content: "Weather in Oslo?" },
  { role: "assistant", content: null, tool_calls: [{ id: "c0", type: "function",
    function: { name: "get_weather", arguments: JSON.stringify({ city: "Oslo" }) } }] },
  { role: "tool", tool_call_id: "c0", content: JSON.stringify({ temp: 3 }) },
];
const toolReply = await client.chat.completions.create({
  model: "tiny", messages: withCall, tools, max_tokens: 4, temperature: 0 });
check(["stop", "length", "tool_calls"].includes(toolReply.choices[0].finish_reason) &&
      toolReply.usage.prompt_tokens > 100, "tools: served, the signatures in the prompt");
check(await status(() => client.chat.completions.create({
  model: "tiny", messages, tools, tool_choice: "required" })) === 400,
  "tool_choice required: BadRequestError (400)");

// Logprobs: greedy, so each token is the most likely of its top list;
// one entry per generated token, streamed or whole.
const lpReq = { model: "tiny", messages, max_tokens: 6, temperature: 0, logprobs: true,
                top_logprobs: 3, ignore_eos: true };
const lpWhole = await client.chat.completions.create(lpReq);
const lpc = lpWhole.choices[0].logprobs?.content ?? [];
check(lpc.length === lpWhole.usage.completion_tokens &&
      lpc.every((e) => e.top_logprobs.length === 3 && e.logprob <= 0 &&
                       Math.abs(e.logprob - e.top_logprobs[0].logprob) < 1e-6 &&
                       e.top_logprobs[0].logprob >= e.top_logprobs[1].logprob &&
                       e.top_logprobs[1].logprob >= e.top_logprobs[2].logprob &&
                       Array.isArray(e.bytes)),
      "chat logprobs: one per token, greedy picks the top one, sorted");
let streamedLp = 0;
for await (const chunk of await client.chat.completions.create({ ...lpReq, stream: true }))
  streamedLp += chunk.choices[0]?.logprobs?.content?.length ?? 0;
check(streamedLp === lpc.length, "chat logprobs streamed: the same count");
const clp = await client.completions.create({ model: "tiny", prompt: "Once", max_tokens: 5,
                                              temperature: 0, logprobs: 2, ignore_eos: true });
const cl = clp.choices[0].logprobs;
check(cl.tokens.length === clp.usage.completion_tokens &&
      cl.token_logprobs.length === cl.tokens.length && cl.top_logprobs.length === cl.tokens.length &&
      cl.text_offset[0] === 0 && cl.tokens.join("") === clp.choices[0].text,
      "completions logprobs: tokens, values, tops and offsets");

// Seeded sampling repeats.
const draw = () => client.completions.create({
  model: "tiny", prompt: "Once", max_tokens: 8, temperature: 0.8, top_p: 0.9, seed: 5,
});
check((await draw()).choices[0].text === (await draw()).choices[0].text,
      "the same seed, the same sample");

check(await status(() => client.chat.completions.create({ model: "nope", messages })) === 404,
      "unknown model: NotFoundError (404)");
check(await status(() => client.chat.completions.create({
  model: "tiny", messages, temperature: 3 })) === 400, "temperature 3: BadRequestError (400)");

if (failed) {
  console.error(`${failed} check(s) failed`);
  process.exit(1);
}
console.log("all checks passed");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
