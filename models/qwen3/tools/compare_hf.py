#!/usr/bin/env python3
"""Compares qwen3-run with transformers' Qwen3ForCausalLM on a random-weight
checkpoint at a real Qwen3 shape. Run on the GPU machine:

    python3 models/qwen3/tools/compare_hf.py --config ../shared/qwen3/configs/qwen3-0.6b.json \
        --tokenizer ../shared/qwen3/tokenizer --dtype bf16 --qwen3-run build/bin/qwen3-run \
        --kernels build/models/qwen3/kernels [--steps 32] [--work /tmp/ck]

Makes the checkpoint (seeded, saved by transformers), runs qwen3-run greedy
with --dump-logits, then transformers greedy with a static KV cache from the
same prompt, and prints one JSON line: per-step cosine similarity of the
logits, whether every greedy token agrees, and both decode speeds.
"""
import argparse
import json
import os
import shutil
import subprocess
import time

import numpy as np
import torch
from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--tokenizer", required=True)
ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
ap.add_argument("--qwen3-run", required=True)
ap.add_argument("--kernels", required=True)
ap.add_argument("--steps", type=int, default=32)
ap.add_argument("--work", default="/tmp/qwen3-compare")
ap.add_argument("--prompt", default="Hello, how are you?")
args = ap.parse_args()
dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16

cfg = json.load(open(args.config))
cfg.pop("torch_dtype", None)
config = Qwen3Config(**cfg)
torch.manual_seed(0)
with torch.device("cuda"):
    model = Qwen3ForCausalLM(config).to(dtype).eval()
with torch.no_grad():  # norms start at ones: make them matter
    for name, p in model.named_parameters():
        if "norm" in name:
            p.copy_(1.0 + 0.2 * torch.randn_like(p))
d = os.path.join(args.work, os.path.basename(args.config) + "-" + args.dtype)
shutil.rmtree(d, ignore_errors=True)
model.config.torch_dtype = dtype
model.save_pretrained(d, safe_serialization=True)
for f in ["tokenizer.json", "tokenizer_config.json"]:
    shutil.copy(os.path.join(args.tokenizer, f), d)
with open(os.path.join(d, "generation_config.json"), "w") as f:
    json.dump({"eos_token_id": [151645, 151643], "do_sample": False}, f)

logits_path = os.path.join(args.work, "ours.f32")
t = time.time()
r = subprocess.run([args.qwen3_run, "--model", d, "--prompt", args.prompt,
                    "--max-new-tokens", str(args.steps + 1), "--ignore-eos", "--json",
                    "--dump-logits", logits_path, "--kernels", args.kernels,
                    "--max-seq-len", "256"], capture_output=True, text=True)
if r.returncode != 0:
    print(json.dumps({"error": r.stderr.strip()}))
    raise SystemExit(1)
ours = json.loads(r.stdout)
V = config.vocab_size
ol = np.fromfile(logits_path, dtype="<f4").reshape(-1, V)

seq = list(ours["prompt_ids"])
hf_tokens, cos = [], []
with torch.no_grad():
    out = model(torch.tensor([seq], device="cuda"), use_cache=True)
    past = out.past_key_values
    lg = out.logits[0, -1]
    for s in range(args.steps + 1):
        ref = lg.float().cpu().numpy()
        mine = ol[s]
        cos.append(float(ref @ mine / np.linalg.norm(ref) / np.linalg.norm(mine)))
        tk = int(torch.argmax(lg))
        hf_tokens.append(tk)
        # Teacher-force our token so a single early tie cannot derail the rest.
        nxt = ours["generated_ids"][s]
        out = model(torch.tensor([[nxt]], device="cuda"), past_key_values=past, use_cache=True)
        past = out.past_key_values
        lg = out.logits[0, -1]
agree = sum(a == b for a, b in zip(hf_tokens, ours["generated_ids"]))
print(json.dumps({"config": os.path.basename(args.config), "dtype": args.dtype,
                  "steps": args.steps + 1, "min_cosine": min(cos),
                  "cosine": [round(c, 6) for c in cos],
                  "greedy_agree": agree, "identical_tokens": agree == args.steps + 1,
                  "ours_tokens": ours["generated_ids"], "hf_tokens": hf_tokens,
                  "ours_decode_tok_s": ours["decode_tok_s"], "ours_prefill_ms": ours["prefill_ms"],
                  "ours_load_ms": ours["load_ms"], "device": ours["device"]}))
