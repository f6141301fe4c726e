#!/usr/bin/env python3
"""FP8 decode beside bf16, batch 1, Grout's protocol (decode.py's): each
model's random-weight bf16 checkpoint and the same weights in Qwen's FP8
layout (fp8_checkpoint.py: e4m3 projections, 128 x 128 block scales), a
prompt of 18 tokens, tg 128 by default, greedy, a warm-up generation then
repeated runs in one process; decode tok/s median and IQR, the roofline of
each (copy bandwidth over the bytes a step streams: the weights as stored
plus the KV cache at the mean context), time to first token, and the FP8
step's per-kernel profile.

    python3 bench/qwen3/fp8_decode.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels \\
        --models qwen3-8b --dtype bf16 --out results.jsonl
"""
import argparse
import os
import shutil

import common
import fp8_checkpoint  # models/qwen3/tools, on common's path

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-bench")
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", type=int, default=18)
ap.add_argument("--tg", default="128")
ap.add_argument("--reps", type=int, default=5)
args = ap.parse_args()

common.emit(args.out, kind="env", bench="fp8_decode", **common.environment())
bw = common.copy_bandwidth()
common.emit(args.out, kind="copy", bytes_per_s=bw)
ids = common.prompt_ids(args.pp)
for name, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    fp8_dir = d + "-fp8"
    fp8_checkpoint.convert(d, fp8_dir)
    # The projections' weights: one byte each plus a 4-byte scale per block
    # instead of two bytes each.
    L, H, I = cfg.num_hidden_layers, cfg.hidden_size, cfg.intermediate_size
    q, kv = cfg.num_attention_heads * cfg.head_dim, cfg.num_key_value_heads * cfg.head_dim
    linear = L * (H * (q + 2 * kv) + q * H + 3 * H * I)
    streamed_fp8 = streamed - 2 * linear + linear + 4 * linear // (128 * 128)
    for weights, model_dir, step_bytes in (("bf16", d, streamed), ("fp8", fp8_dir, streamed_fp8)):
        common.emit(args.out, kind="model", model=name, weights=weights, params=nparam,
                    streamed_bytes=step_bytes, roofline_tok_s_short=bw / step_bytes)
        for tg in [int(t) for t in args.tg.split(",")]:
            j = common.run(args.qwen3_run, args.kernels, model_dir, ids, tg, args.reps)
            runs = j["runs"]
            per_token = step_bytes + kvpp * (args.pp + tg / 2)
            common.emit(args.out, kind="decode", model=name, weights=weights, pp=args.pp, tg=tg,
                        decode_tok_s=common.stats([r["decode_tok_s"] for r in runs]),
                        ttft_ms=common.stats([r["prefill_ms"] for r in runs]),
                        roofline_tok_s=bw / per_token, copy_bytes_per_s=bw,
                        weights_ms=j["weights_ms"])
    j = common.run(args.qwen3_run, args.kernels, fp8_dir, ids, 64, 1, warmup=0,
                   extra=["--profile"])
    common.emit(args.out, kind="profile", model=name, weights="fp8", position=args.pp + 63,
                kernels=j["profile"], copy_bytes_per_s=j.get("copy_bytes_per_s"))
    if not args.keep_checkpoints:
        shutil.rmtree(fp8_dir, ignore_errors=True)
