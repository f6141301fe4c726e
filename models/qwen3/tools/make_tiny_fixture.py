#!/usr/bin/env python3
"""Makes the committed test model: a tiny Qwen3 (2 layers, hidden 128, 2
heads of 64, 1 KV head) with random weights, saved by transformers in bf16
and in f16, and its golden outputs computed by transformers'
Qwen3ForCausalLM: the chat-templated prompt's ids and, for 32 greedy steps,
each step's token and logits (full forward each step, no cache). Run on the
GPU machine (PyTorch + transformers); the outputs are committed.

    python3 models/qwen3/tools/make_tiny_fixture.py TOKENIZER_DIR OUTDIR
        [--heads N --kv-heads N --intermediate N --untied --dtypes bf16,f16]

TOKENIZER_DIR is what tools/make_tiny_tokenizer.py wrote (from the shared
Qwen3 tokenizer, first 2048 entries); OUTDIR/bf16 and OUTDIR/f16 are
committed as test/fixtures/tiny-bf16 and tiny-f16 (a rerun reproduces the
committed bf16 files byte for byte: seeded CPU initialisation). The
options make the other GQA groups' fixtures (test/fixtures/tiny-g*):

    --heads 2 --kv-heads 2 --dtypes bf16                       tiny-g1-bf16
    --heads 3 --kv-heads 1 --intermediate 384 --dtypes bf16    tiny-g3-bf16
    --heads 5 --kv-heads 1 --untied --dtypes f16               tiny-g5-f16
"""
import argparse
import json
import os
import shutil

import torch
from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

ap = argparse.ArgumentParser()
ap.add_argument("tokenizer_dir")
ap.add_argument("out")
ap.add_argument("--heads", type=int, default=2)
ap.add_argument("--kv-heads", type=int, default=1)
ap.add_argument("--intermediate", type=int, default=256)
ap.add_argument("--untied", action="store_true")
ap.add_argument("--dtypes", default="bf16,f16")
args = ap.parse_args()
tok_dir, out = args.tokenizer_dir, args.out
PROMPT = "Hello, how are you?"
STEPS = 32

tok = AutoTokenizer.from_pretrained(tok_dir)
eos = [tok.convert_tokens_to_ids("<|im_end|>"), tok.convert_tokens_to_ids("<|endoftext|>")]
config = Qwen3Config(
    vocab_size=2176, hidden_size=128, intermediate_size=args.intermediate,
    num_hidden_layers=2, num_attention_heads=args.heads,
    num_key_value_heads=args.kv_heads, head_dim=64,
    max_position_embeddings=512, rms_norm_eps=1e-6, rope_theta=1000000.0,
    tie_word_embeddings=not args.untied, initializer_range=0.2, hidden_act="silu",
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

dtypes = {"bf16": torch.bfloat16, "f16": torch.float16}
for dtype_name in args.dtypes.split(","):
    dtype = dtypes[dtype_name]
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
