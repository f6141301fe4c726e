#!/usr/bin/env python3
"""Batch-1 decode benchmark, Grout's protocol: prompt of 18 tokens, tg sweep
(128, 512, 2048, 8192 generated), greedy, a warm-up generation then
repeated runs; decode-phase tok/s and request tok/s (prefill included)
with median and IQR; the roofline at each length (copy bandwidth over the
bytes one step streams: weights plus the KV cache at the mean context); a
per-kernel profile. Random weights at the real shapes, made here.

    python3 bench/qwen3/decode.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels \\
        --models qwen3-0.6b,qwen3-8b --out results.jsonl
"""
import argparse

import common

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-bench")
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", type=int, default=18)
ap.add_argument("--tg", default="128,512,2048,8192")
ap.add_argument("--reps", type=int, default=3)
args = ap.parse_args()

common.emit(args.out, kind="env", bench="decode", **common.environment())
bw = common.copy_bandwidth()
common.emit(args.out, kind="copy", bytes_per_s=bw)
ids = common.prompt_ids(args.pp)
for name, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    common.emit(args.out, kind="model", model=name, dtype=args.dtype, params=nparam,
                streamed_bytes=streamed, kv_bytes_per_position=kvpp,
                roofline_tok_s_short=bw / streamed)
    for tg in [int(t) for t in args.tg.split(",")]:
        j = common.run(args.qwen3_run, args.kernels, d, ids, tg, args.reps)
        runs = j["runs"]
        per_token = streamed + kvpp * (args.pp + tg / 2)
        common.emit(args.out, kind="decode", model=name, dtype=args.dtype, pp=args.pp, tg=tg,
                    decode_tok_s=common.stats([r["decode_tok_s"] for r in runs]),
                    request_tok_s=common.stats([r["request_tok_s"] for r in runs]),
                    ttft_ms=common.stats([r["prefill_ms"] for r in runs]),
                    roofline_tok_s=bw / per_token, copy_bytes_per_s=bw,
                    load_ms=j["load_ms"], weights_ms=j["weights_ms"])
    j = common.run(args.qwen3_run, args.kernels, d, ids, 64, 1, warmup=0, extra=["--profile"])
    common.emit(args.out, kind="profile", model=name, dtype=args.dtype, position=args.pp + 63,
                kernels=j["profile"], copy_bytes_per_s=j.get("copy_bytes_per_s"))
    # Cold start: a fresh process to its first token (the weights are in the
    # page cache now; weights_ms is what reading and uploading them took).
    j = common.run(args.qwen3_run, args.kernels, d, ids, 1, 1, warmup=0)
    common.emit(args.out, kind="cold_start", model=name,
                launch_to_first_token_ms=j["launch_to_first_token_ms"],
                weights_ms=j["weights_ms"], load_ms=j["load_ms"],
                tokenizer_load_ms=j["tokenizer_load_ms"])
