#!/usr/bin/env python3
"""Batch-1 greedy decode speed of qwen3-run on a random-weight checkpoint at
a real Qwen3 shape, with the device copy bandwidth measured in the same run.
Run on the GPU machine:

    python3 models/qwen3/tools/decode_speed.py --config CONFIG.json --tokenizer DIR \\
        --dtype f16 --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels

Prints one JSON line per measurement: the copy bandwidth, then for each
generated length the prompt tokens, prefill ms, decode tok/s and the roofline
(copy bandwidth / bytes streamed per token), then the per-kernel profile.
"""
import argparse
import json
import os
import subprocess
import time

import torch

import random_checkpoint
from copy_bandwidth import copy_bandwidth

ap = argparse.ArgumentParser()
ap.add_argument("--config", required=True)
ap.add_argument("--tokenizer", required=True)
ap.add_argument("--dtype", default="f16", choices=["bf16", "f16"])
ap.add_argument("--qwen3-run", required=True)
ap.add_argument("--kernels", required=True,
                help="kernel directory; several, comma-separated, are compared in turn")
ap.add_argument("--variant", action="append", default=[],
                help="NAME:FLAGS, extra qwen3-run flags to compare (repeatable), "
                     "e.g. --variant pdl: --variant nopdl:--no-pdl")
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--tg", default="128,512")
ap.add_argument("--work", default="/tmp/qwen3-speed")
ap.add_argument("--prompt", default="Write a short story about a robot learning to paint.")
args = ap.parse_args()
dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16


def emit(**kw):
    print(json.dumps(kw), flush=True)


bw = copy_bandwidth()
emit(kind="d2d_copy", TBps=bw / 1e12, gpu=torch.cuda.get_device_name(0))
d = os.path.join(args.work, os.path.basename(args.config) + "-" + args.dtype)
t = time.time()
model, config, d = random_checkpoint.make(args.config, dtype, d, args.tokenizer)
nparam = sum(p.numel() for p in model.parameters())
emb = model.model.embed_tokens.weight.numel()
esize = 2
# Bytes streamed per decode token: every weight but the embedding table (one
# row), plus the LM head (the tied table or its own matrix).
streamed = (nparam - emb) * esize + (emb * esize if config.tie_word_embeddings else 0)
del model
torch.cuda.empty_cache()
emit(kind="checkpoint", dir=d, params=nparam, streamed_bytes=streamed,
     make_s=round(time.time() - t, 1))

variants = [v.split(":", 1) for v in args.variant] or [["default", ""]]
for kernels, tg, (vname, vflags) in [(k, int(t), v) for k in args.kernels.split(",")
                                      for t in args.tg.split(",") for v in variants]:
    cmd = [args.qwen3_run, "--model", d, "--prompt", args.prompt, "--max-new-tokens", str(tg),
           "--ignore-eos", "--json", "--kernels", kernels, "--max-seq-len", "4096"] + vflags.split()
    runs = []
    for _ in range(args.runs):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            emit(kind="error", stderr=r.stderr.strip()[-2000:])
            raise SystemExit(1)
        runs.append(json.loads(r.stdout))
    rates = sorted(x["decode_tok_s"] for x in runs)
    last = runs[-1]
    emit(kind="ours_decode", config=os.path.basename(args.config), dtype=args.dtype, tg=tg,
         kernels=kernels, variant=vname, prompt_tokens=last["prompt_tokens"], prefill_ms=last["prefill_ms"],
         tok_s_runs=rates, tok_s_median=rates[len(rates) // 2], roofline_tok_s=bw / streamed,
         fraction_of_roofline=rates[len(rates) // 2] * streamed / bw, load_ms=last["load_ms"])

r = subprocess.run([args.qwen3_run, "--model", d, "--prompt", args.prompt, "--max-new-tokens",
                    "8", "--json", "--profile", "--kernels", args.kernels.split(",")[0], "--max-seq-len", "4096"],
                   capture_output=True, text=True)
if r.returncode == 0:
    j = json.loads(r.stdout)
    emit(kind="profile", profile=j.get("profile"), copy_bytes_per_s=j.get("copy_bytes_per_s"))
else:
    emit(kind="error", stderr=r.stderr.strip()[-2000:])
