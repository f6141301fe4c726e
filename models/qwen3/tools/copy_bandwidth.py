"""The device-to-device copy bandwidth every speed figure is written beside:
a copy of 2 GiB, read + write counted, median of 20 timed with CUDA events
after 3 warm-ups. Bytes per second."""
import torch


def copy_bandwidth(device=0):
    a = torch.empty(1 << 30, dtype=torch.float16, device=f"cuda:{device}")
    b = torch.empty_like(a)
    for _ in range(3):
        b.copy_(a)
    times = []
    for _ in range(20):
        with torch.cuda.device(device):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record(); b.copy_(a); e.record(); e.synchronize()
        times.append(s.elapsed_time(e) / 1e3)
    nbytes = 2 * a.numel() * a.element_size()
    del a, b
    torch.cuda.empty_cache()
    return nbytes / sorted(times)[len(times) // 2]
