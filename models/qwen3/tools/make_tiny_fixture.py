#!/usr/bin/env python3
"""Makes the committed test model: a tiny Qwen3 (2 layers, hidden 128, 2
heads of 64, 1 KV head) with random weights, saved by transformers in bf16
and in f16, and its golden outputs computed by transformers'
Qwen3ForCausalLM: the chat-templated prompt's ids and, for 32 greedy steps,
each step's token and logits (full forward each step, no cache). Run on the
GPU machine (PyTorch + transformers); the outputs are committed.

    python3 models/qwen3/tools/make_tiny_fixture.py TOKENIZER_DIR OUTDIR

TOKENIZER_DIR is what tools/make_tiny_tokenizer.py wrote (from the shared
Qwen3 tokenizer, first 2048 entries); OUTDIR/bf16 and OUTDIR/f16 are
committed as test/fixtures/tiny-bf16 and tiny-f16 (a rerun reproduces the
committed bf16 files byte for byte: seeded CPU initialisation).
"""
import json
import os
import shutil
import sys

import torch
from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

tok_dir, out = sys.argv[1], sys.argv[2]
PROMPT = "Hello, how are you?"
STEPS = 32

tok = AutoTokenizer.from_pretrained(tok_dir)
eos = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
config = Qwen3Config(
    vocab_size=2176, hidden_size=128, intermediate_size=256, num_hidden_layers=2,
    num_attention_heads=2, num_key_value_heads=1, head_dim=64,
    max_position_embeddings=512, rms_norm_eps=1e-6, rope_theta=1000000.0,
    tie_word_embeddings=True, initializer_range=0.2, hidden_act="silu",
    bos_token_id=eos[1], eos_token_id=eos[0])
torch.manual_seed(1234)
model = Qwen3ForCausalLM(config).float()
with torch.no_grad():
    for name, p in model.named_parameters():
        if "norm" in name:  # norms start at ones: make them matter
            p.copy_(1.0 + 0.2 * torch.randn_like(p))

text = tok.apply_chat_template([{"role": "user", "content": PROMPT}], tokenize=False,
                               add_generation_prompt=True, enable_thinking=False)
ids = tok(text, add_special_tokens=False)["input_ids"]
cases = []
for s in ["Hello world", "The year 2026 had 365 days; pi is 3.14159.", "café naïve",
          "def add(a, b):\n    return a + b\n", "   spaces   ", "你好", "😀!"]:
    cases.append({"text": s, "ids": tok(s, add_special_tokens=False)["input_ids"]})

for dtype_name, dtype in [("bf16", torch.bfloat16), ("f16", torch.float16)]:
    d = os.path.join(out, dtype_name)
    os.makedirs(d, exist_ok=True)
    m = Qwen3ForCausalLM(config)
    m.load_state_dict(model.state_dict())
    m = m.to(dtype).cuda().eval()
    m.config.torch_dtype = dtype
    m.save_pretrained(d, safe_serialization=True)
    for f in ["tokenizer.json", "tokenizer_config.json"]:
        shutil.copy(os.path.join(tok_dir, f), d)
    with open(os.path.join(d, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": eos[1], "eos_token_id": eos, "do_sample": False}, f)
    seq = list(ids)
    tokens, logits = [], []
    with torch.no_grad():
        for _ in range(STEPS + 1):
            lg = m(torch.tensor([seq], device="cuda")).logits[0, -1]
            logits.append(lg.float().cpu())
            t = int(torch.argmax(lg).item())
            tokens.append(t)
            seq.append(t)
    torch.stack(logits).numpy().astype("<f4").tofile(os.path.join(d, "golden_logits.f32"))
    with open(os.path.join(d, "golden.json"), "w") as f:
        json.dump({"prompt": PROMPT, "rendered": text, "prompt_ids": ids,
                   "greedy_tokens": tokens, "steps": STEPS + 1,
                   "vocab_size": config.vocab_size, "tokenizer_cases": cases,
                   "note": "transformers Qwen3ForCausalLM, full forward per step"}, f, indent=1)
    print(dtype_name, "tokens", tokens[:10], "...")
