#!/usr/bin/env python3
"""Tensor-parallel decode benchmark (docs/parallel.md): per model, batch-1
decode with --tensor-parallel 1 and N on the same machine (prompt of 18
tokens, greedy, a warm-up generation then repeated runs; median and IQR),
the roofline at each N (N GPUs' copy bandwidth over the bytes a step
streams), the per-kernel profile of one step at N (the all-reduces
included), and the agreement of N ranks' logits with one GPU's over a
greedy run (cosine per step, up to the first step where the picks differ).
Random weights at the real shapes, made here.

    python3 bench/qwen3/parallel.py --configs DIR --tokenizer DIR \\
        --qwen3-run build/bin/qwen3-run --kernels build/models/qwen3/kernels \\
        --models qwen3-14b --dtype bf16 --tp 1,2 --all-reduce peer,nccl --out results.jsonl
"""
import argparse
import os
import struct
import tempfile

import common
import torch

ap = argparse.ArgumentParser()
common.add_checkpoint_args(ap, work="/tmp/qwen3-bench")
ap.add_argument("--kernels", required=True)
ap.add_argument("--pp", type=int, default=18)
ap.add_argument("--tg", type=int, default=128)
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--tp", default="1,2", help="rank counts to run (1 = one GPU)")
ap.add_argument("--agreement-steps", type=int, default=32)
ap.add_argument("--all-reduce", default="auto",
                help="the decode step's all-reduces to time at N > 1, comma-separated "
                     "(qwen3-run --all-reduce: auto, nccl, peer)")
ap.add_argument("--nccl-variants", nargs="*", default=[],
                help="NCCL settings to time the largest rank count with besides the "
                     "default, each NAME=VALUE[,NAME=VALUE...] (e.g. NCCL_PROTO=LL)")
args = ap.parse_args()

common.emit(args.out, kind="env", bench="parallel", gpus=torch.cuda.device_count(),
            **common.environment())
# Every GPU's copy bandwidth; the roofline at N ranks takes the slowest of
# the first N times N.
per_gpu = [common.copy_bandwidth(i) for i in range(torch.cuda.device_count())]
common.emit(args.out, kind="copy", bytes_per_s=per_gpu[0], per_gpu_bytes_per_s=per_gpu)
bw = per_gpu[0]
ids = common.prompt_ids(args.pp)
ranks = [int(t) for t in args.tp.split(",")]
modes = args.all_reduce.split(",")


def dump_logits(d, n, steps):
    """Logits of the prompt's pick and `steps` greedy steps at n ranks."""
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        path = f.name
    try:
        j = common.run(args.qwen3_run, args.kernels, d, ids, steps, 1, warmup=0,
                       extra=["--tensor-parallel", str(n), "--dump-logits", path])
        data = open(path, "rb").read()
    finally:
        os.unlink(path)
    return j, torch.frombuffer(bytearray(data), dtype=torch.float32)


for name, d, cfg, nparam, streamed, kvpp in common.checkpoints(args):
    common.emit(args.out, kind="model", model=name, dtype=args.dtype, params=nparam,
                streamed_bytes=streamed, kv_bytes_per_position=kvpp)
    per_token = streamed + kvpp * (args.pp + args.tg / 2)
    for n, mode in [(n, m) for n in ranks for m in (modes if n > 1 else [None])]:
        tp = ["--tensor-parallel", str(n)] + (["--all-reduce", mode] if mode else [])
        try:
            j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, args.reps, extra=tp)
        except RuntimeError as e:  # e.g. 32B on one 80 GB GPU
            common.emit(args.out, kind="decode", model=name, tp=n, all_reduce=mode,
                        error=str(e)[-400:])
            continue
        runs = j["runs"]
        common.emit(args.out, kind="decode", model=name, dtype=args.dtype, tp=n,
                    all_reduce=mode, pp=args.pp,
                    tg=args.tg, decode_tok_s=common.stats([r["decode_tok_s"] for r in runs]),
                    ttft_ms=common.stats([r["prefill_ms"] for r in runs]),
                    roofline_tok_s=n * min(per_gpu[:n]) / per_token, copy_bytes_per_s=bw,
                    device=j.get("device"), load_ms=j["load_ms"], weights_ms=j["weights_ms"])
        if n == max(ranks) and n > 1 and mode == modes[0]:
            for variant in args.nccl_variants:
                env = dict(kv.split("=", 1) for kv in variant.split(","))
                j = common.run(args.qwen3_run, args.kernels, d, ids, args.tg, args.reps,
                               extra=["--tensor-parallel", str(n)], env=env)
                common.emit(args.out, kind="decode", model=name, dtype=args.dtype, tp=n,
                            nccl_env=env, pp=args.pp, tg=args.tg,
                            decode_tok_s=common.stats([r["decode_tok_s"] for r in j["runs"]]),
                            roofline_tok_s=n * min(per_gpu[:n]) / per_token,
                            copy_bytes_per_s=bw)
        if n > 1:
            p = common.run(args.qwen3_run, args.kernels, d, ids, 64, 1, warmup=0,
                           extra=tp + ["--profile"])
            common.emit(args.out, kind="profile", model=name, tp=n, all_reduce=mode,
                        position=args.pp + 63, kernels=p["profile"])
    if 1 in ranks and len(ranks) > 1 and args.agreement_steps > 0:
        try:
            ja, a = dump_logits(d, 1, args.agreement_steps)
        except RuntimeError as e:
            common.emit(args.out, kind="agreement", model=name, error=str(e)[-400:])
            continue
        for n in [r for r in ranks if r > 1]:
            jb, b = dump_logits(d, n, args.agreement_steps)
            v = cfg.vocab_size
            steps = min(a.numel(), b.numel()) // v
            cos, same = [], 0
            for s in range(steps):
                x, y = a[s * v:(s + 1) * v].double(), b[s * v:(s + 1) * v].double()
                cos.append(float(torch.dot(x, y) / (x.norm() * y.norm())))
                if int(x.argmax()) != int(y.argmax()):
                    break
                same += 1
            common.emit(args.out, kind="agreement", model=name, tp=n, steps=len(cos),
                        same_picks=same, min_cosine=min(cos), cosines=cos)
