#!/usr/bin/env python3
"""Peer: Hugging Face transformers' time to first token for a batch-1
prompt (the prefill forward with a cache, then the greedy pick of the last
position), fp16, random weights at the config's shapes, attention as
transformers picks it by default (SDPA). Median and IQR of timed runs after
warm-ups, CUDA events.

    python3 bench/qwen3/hf_prefill.py --configs DIR --models qwen3-8b --pp 512,2048
"""
import argparse
import json

import torch
from transformers import AutoConfig, DynamicCache, Qwen3ForCausalLM

import common

ap = argparse.ArgumentParser()
ap.add_argument("--configs", required=True)
ap.add_argument("--models", default="qwen3-0.6b,qwen3-4b,qwen3-8b")
ap.add_argument("--pp", default="128,512,2048,8192")
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--out", default="")
args = ap.parse_args()

common.emit(args.out, kind="env", bench="hf_prefill", **common.environment(),
            transformers=__import__("transformers").__version__)
torch.set_grad_enabled(False)
for name in args.models.split(","):
    cfg = AutoConfig.from_pretrained(f"{args.configs}/{name}.json")
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float16)
    with torch.device("cuda"):
        model = Qwen3ForCausalLM(cfg)
    torch.set_default_dtype(torch.float32)
    model.eval()
    for pp in [int(p) for p in args.pp.split(",")]:
        ids = torch.tensor([common.prompt_ids(pp, seed=pp)], device="cuda")

        def ttft():
            out = model(ids, past_key_values=DynamicCache(), use_cache=True, logits_to_keep=1)
            return out.logits[0, -1].argmax()

        for _ in range(2):
            ttft()
        times = []
        for _ in range(args.reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); ttft(); e.record(); e.synchronize()
            times.append(s.elapsed_time(e))
        common.emit(args.out, kind="hf_prefill", model=name, pp=pp, ttft_ms=common.stats(times),
                    attn=getattr(model.config, "_attn_implementation", None))
    del model
    torch.cuda.empty_cache()
