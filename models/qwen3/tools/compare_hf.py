#!/usr/bin/env python3
"""Compares qwen3-run with transformers' Qwen3ForCausalLM on a random-weight
checkpoint at a real Qwen3 shape. Run on the GPU machine:

    python3 models/qwen3/tools/compare_hf.py --config ../shared/qwen3/configs/qwen3-0.6b.json \
        --tokenizer ../shared/qwen3/tokenizer --dtype bf16 --qwen3-run build/bin/qwen3-run \
        --kernels build/models/qwen3/kernels [--steps 32] [--work /tmp/ck]

Makes the checkpoint (seeded, saved by transformers), runs qwen3-run greedy
with --dump-logits, then transformers greedy with a static KV cache from the
same prompt, and prints one JSON line: per-step cosine similarity of the
logits, whether every greedy token agrees, and both decode speeds. With
--fp8 qwen3-run runs the checkpoint in Qwen's FP8 layout (fp8_checkpoint.py)
and transformers the weights it decodes to, in the model dtype and in f32.
"""
import argparse
import json
import os
import subprocess

import numpy as np
import torch

import fp8_checkpoint
import random_checkpoint

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--tokenizer", required=True)
ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
ap.add_argument("--qwen3-run", required=True)
ap.add_argument("--kernels", required=True)
ap.add_argument("--steps", type=int, default=32)
ap.add_argument("--work", default="/tmp/qwen3-compare")
ap.add_argument("--prompt", default="Hello, how are you?")
ap.add_argument("--fp8", action="store_true",
                help="run qwen3-run on the checkpoint quantized to Qwen's FP8 layout")
ap.add_argument("--tensor-parallel", default="1",
                help="qwen3-run's rank counts to compare, e.g. 1,2 (one line each)")
args = ap.parse_args()
dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16

d = os.path.join(args.work, os.path.basename(args.config) + "-" + args.dtype)
model, config, d = random_checkpoint.make(args.config, dtype, d, args.tokenizer)
V = config.vocab_size
if args.fp8:
    fp8_dir = d + "-fp8"
    fp8_checkpoint.convert(d, fp8_dir)
    fp8_checkpoint.load_dequantized(model, fp8_dir)
    d = fp8_dir


def ours_run(tp):
    """qwen3-run greedy at `tp` ranks: its JSON and each step's logits."""
    logits_path = os.path.join(args.work, "ours.f32")
    r = subprocess.run([args.qwen3_run, "--model", d, "--prompt", args.prompt,
                        "--max-new-tokens", str(args.steps + 1), "--ignore-eos", "--json",
                        "--dump-logits", logits_path, "--kernels", args.kernels,
                        "--max-seq-len", "256", "--tensor-parallel", str(tp)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(json.dumps({"error": r.stderr.strip(), "tensor_parallel": tp}))
        raise SystemExit(1)
    return json.loads(r.stdout), np.fromfile(logits_path, dtype="<f4").reshape(-1, V)


def teacher_forced(m, prompt, forced):
    """Logits of `m` for the prompt and after each forced token (our tokens,
    so a single early near-tie cannot derail the rest of the comparison)."""
    out_logits = []
    with torch.no_grad():
        out = m(torch.tensor([prompt], device="cuda"), use_cache=True)
        past = out.past_key_values
        for s in range(args.steps + 1):
            out_logits.append(out.logits[0, -1].float().cpu().numpy())
            out = m(torch.tensor([[forced[s]]], device="cuda"), past_key_values=past,
                    use_cache=True)
            past = out.past_key_values
    return out_logits


def cosine(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


runs = [(tp, *ours_run(tp)) for tp in [int(t) for t in args.tensor_parallel.split(",")]]
hfs = [teacher_forced(model, list(o["prompt_ids"]), o["generated_ids"]) for _, o, _ in runs]
# The higher-precision control: the same weights run in f32 by transformers.
# Where greedy tokens differ at near-ties, it says whose pick was right.
model = model.float()
refs = [teacher_forced(model, list(o["prompt_ids"]), o["generated_ids"]) for _, o, _ in runs]
n = args.steps + 1
for (tp, ours, ol), hf, ref in zip(runs, hfs, refs):
    forced = ours["generated_ids"]
    hf_tokens = [int(np.argmax(x)) for x in hf]
    ref_tokens = [int(np.argmax(x)) for x in ref]
    cos = [cosine(hf[s], ol[s]) for s in range(n)]
    agree = sum(a == b for a, b in zip(hf_tokens, forced))
    print(json.dumps({"config": os.path.basename(args.config), "dtype": args.dtype,
                      "weights": "fp8" if args.fp8 else "16-bit",
                      "tensor_parallel": tp, "steps": n, "min_cosine": min(cos),
                      "cosine": [round(c, 6) for c in cos],
                      "greedy_agree": agree, "identical_tokens": agree == n,
                      "ours_tokens": forced, "hf_tokens": hf_tokens,
                      "f32_control": {
                          "min_cosine_ours": min(cosine(ref[s], ol[s]) for s in range(n)),
                          "min_cosine_hf": min(cosine(ref[s], hf[s]) for s in range(n)),
                          "agree_ours": sum(a == b for a, b in zip(ref_tokens, forced)),
                          "agree_hf": sum(a == b for a, b in zip(ref_tokens, hf_tokens))},
                      "ours_decode_tok_s": ours["decode_tok_s"],
                      "ours_prefill_ms": ours["prefill_ms"], "ours_load_ms": ours["load_ms"],
                      "device": ours["device"]}), flush=True)
