"""The peer of qwen3-serve's continuous batching: transformers'
generate_batch (its continuous-batching scheduler, paged KV cache) on the
same random checkpoint and request shape as serve_bench.py: for each
concurrency C, C requests of --pp random prompt ids and --tg new tokens
(greedy), submitted at once; output tok/s is every generated token over
the wall time, time to first token and inter-token latency from its
per-token timestamps where it records them. One JSON line per level, with
the attention implementation that loaded and the device-to-device copy
bandwidth of the same run.
    python3 hf_batch_peer.py --checkpoint DIR [--concurrency 16,64] [--pp 512] [--tg 256]"""
import argparse, json, os, sys, time

import torch
from transformers import AutoModelForCausalLM
from transformers.generation import GenerationConfig

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "qwen3"))
import common  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--checkpoint", required=True)
ap.add_argument("--concurrency", default="16,64")
ap.add_argument("--pp", type=int, default=512)
ap.add_argument("--tg", type=int, default=256)
ap.add_argument("--out", default="")
args = ap.parse_args()


def copy_bandwidth():
    n = 1 << 28
    a = torch.empty(n, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    ts = []
    for _ in range(9):
        s, e = torch.cuda.Event(True), torch.cuda.Event(True)
        s.record(); b.copy_(a); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 1e3)
    ts.sort()
    return 2 * n / ts[4]


bw = copy_bandwidth()
model, attn, errors = None, None, {}
for impl in ("sdpa_paged", "paged|sdpa", "sdpa"):
    try:
        model = AutoModelForCausalLM.from_pretrained(args.checkpoint, dtype=torch.bfloat16,
                                                     device_map="cuda", attn_implementation=impl)
        attn = impl
        break
    except Exception as e:  # the next implementation
        errors[impl] = str(e)[:200]
if model is None:
    common.emit(args.out, kind="hf_batch", error=errors)
    sys.exit(1)
model.eval()
for conc in [int(c) for c in args.concurrency.split(",")]:
    inputs = [common.prompt_ids(args.pp, seed=1000 + i) for i in range(conc)]
    gen = GenerationConfig(max_new_tokens=args.tg, do_sample=False)
    record = {"kind": "hf_batch", "concurrency": conc, "pp": args.pp, "tg": args.tg,
              "attn_implementation": attn, "copy_bytes_per_s": bw}
    try:
        model.generate_batch(inputs=inputs[:2], generation_config=GenerationConfig(
            max_new_tokens=8, do_sample=False), progress_bar=False)  # warm-up
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = model.generate_batch(inputs=inputs, generation_config=gen, progress_bar=False,
                                   record_timestamps=True)
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
        tokens = sum(len(o.generated_tokens) for o in out.values())
        record.update(requests=len(out), generated_tokens=tokens, wall_s=wall,
                      output_tok_s=tokens / wall)
        stamps = [getattr(o, "timestamps", None) for o in out.values()]
        if all(s for s in stamps):
            itl = sorted((b - a) * 1e3 for s in stamps for a, b in zip(s, s[1:]))
            record["itl_ms"] = {"p50": itl[len(itl) // 2], "p99": itl[int(0.99 * (len(itl) - 1))]}
    except Exception as e:
        record["error"] = str(e)[:300]
    common.emit(args.out, **record)
