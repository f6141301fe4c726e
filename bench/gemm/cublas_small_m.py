"""cuBLAS (through torch) on the projection shapes of a Qwen3 size at a few
rows: the peer of the batched decode step's GEMMs (qwen3-serve at B rows).
Weights rotate among copies (more than 200 MB) so that L2 serves none;
CUDA events over 50 launches, median. One JSON line per figure, with the
device-to-device copy bandwidth of the same run.
    python3 cublas_small_m.py [--rows 1,16,64] [--dtype bf16]"""
import argparse, json, torch

ap = argparse.ArgumentParser()
ap.add_argument("--rows", default="1,16,64")
ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16"])
args = ap.parse_args()
dt = torch.bfloat16 if args.dtype == "bf16" else torch.float16
H, I, Q, KV = 4096, 12288, 32 * 128, 8 * 128  # Qwen3-8B
shapes = {"qkv": (Q + 2 * KV, H), "o": (H, Q), "gate_up": (2 * I, H), "down": (H, I)}


def ev_time(fn, reps=50):
    for _ in range(5):
        fn()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e) / 1e3)
    ts.sort()
    return ts[len(ts) // 2]


n = 1 << 28
a = torch.empty(n, dtype=torch.uint8, device="cuda"); b = torch.empty_like(a)
copy = 2 * n / ev_time(lambda: b.copy_(a))
print(json.dumps({"kind": "copy", "bytes_per_s": copy, "gpu": torch.cuda.get_device_name(0)}))
del a, b
for name, (N, K) in shapes.items():
    copies = max(2, int(200e6 // (N * K * 2)) + 1)
    Ws = [torch.randn(N, K, dtype=dt, device="cuda") for _ in range(copies)]
    for M in [int(m) for m in args.rows.split(",")]:
        x = torch.randn(M, K, dtype=dt, device="cuda")
        it = [0]

        def f():
            it[0] = (it[0] + 1) % copies
            return torch.nn.functional.linear(x, Ws[it[0]])
        t = ev_time(f)
        moved = 2 * (N * K + M * (N + K))
        print(json.dumps({"kind": "gemm_cublas", "shape": name, "M": M, "N": N, "K": K,
                          "us": t * 1e6, "of_copy": moved / t / copy}))
    del Ws
