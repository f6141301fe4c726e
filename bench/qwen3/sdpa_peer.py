#!/usr/bin/env python3
"""The prompt attention's peer: PyTorch SDPA (each backend it offers on this
GPU) at Qwen3-8B's attention shape (32 query heads, 8 KV heads of 128,
causal), f16, timed with CUDA events: median of 20 after 3 warm-ups, one
layer. TFLOP/s counts the causal half (4 * L^2 / 2 * 128 * 32). JSON lines.

    python3 bench/qwen3/sdpa_peer.py [TOKENS,TOKENS,...]   # default 2048,8192
"""
import json, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

out = []
for L in [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "2048,8192").split(",")]:
    torch.manual_seed(0)
    q = torch.randn(1, 32, L, 128, device="cuda", dtype=torch.float16)
    k = torch.randn(1, 8, L, 128, device="cuda", dtype=torch.float16)
    v = torch.randn(1, 8, L, 128, device="cuda", dtype=torch.float16)
    kk, vv = k.repeat_interleave(4, dim=1), v.repeat_interleave(4, dim=1)
    flop = 4 * L * L / 2 * 128 * 32
    for name, be in [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION)]:
        try:
            with sdpa_kernel([be]):
                for _ in range(3):
                    F.scaled_dot_product_attention(q, kk, vv, is_causal=True)
                torch.cuda.synchronize()
                ts = []
                for _ in range(20):
                    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    a.record(); F.scaled_dot_product_attention(q, kk, vv, is_causal=True); b.record()
                    torch.cuda.synchronize(); ts.append(a.elapsed_time(b))
            ts.sort(); ms = ts[len(ts) // 2]
            r = {"peer": "sdpa", "backend": name, "L": L, "ms": round(ms, 4), "tflops": round(flop / ms / 1e9, 1)}
        except Exception as e:
            r = {"peer": "sdpa", "backend": name, "L": L, "error": str(e).splitlines()[0][:200]}
        print(json.dumps(r)); sys.stdout.flush()
