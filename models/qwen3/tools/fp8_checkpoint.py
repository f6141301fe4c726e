"""Qwen's fine-grained FP8 checkpoint layout (Qwen/Qwen3-*-FP8) made from a
16-bit checkpoint: every linear projection's weight in float8_e4m3fn with
one weight_scale_inv per 128 x 128 block (amax / 448, F32), the embedding,
norms and LM head kept, and config.json's quantization_config as those
checkpoints write it. Shared by compare_hf.py (--fp8) and the FP8 decode
benchmark; runs on the GPU machine (PyTorch)."""
import glob
import json
import os
import shutil

import torch
from safetensors.torch import load_file, save_file

BLOCK = 128
LINEARS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def is_linear(name):
    return name.endswith(".weight") and name.rsplit(".", 2)[-2] in LINEARS


def quantize(w):
    """(e4m3 weight, f32 scale_inv [rows / 128, cols / 128]) of `w`, whose
    dims are multiples of 128 (every dense Qwen3 projection's are)."""
    rows, cols = w.shape
    b = w.float().reshape(rows // BLOCK, BLOCK, cols // BLOCK, BLOCK)
    s = b.abs().amax(dim=(1, 3)).clamp(min=1e-12) / 448.0
    q = (b / s[:, None, :, None]).to(torch.float8_e4m3fn).reshape(rows, cols)
    return q, s


def dequantize(q, s):
    """The f32 weight an FP8 checkpoint stores: each byte times its block's
    scale_inv."""
    rows, cols = q.shape
    b = q.float().reshape(rows // BLOCK, BLOCK, cols // BLOCK, BLOCK)
    return (b * s.float()[:, None, :, None]).reshape(rows, cols)


def convert(src, out):
    """Writes the FP8 checkpoint of the 16-bit one in `src` to `out`."""
    stored = {}
    for f in sorted(glob.glob(os.path.join(src, "*.safetensors"))):
        for name, t in load_file(f, device="cuda").items():
            if is_linear(name):
                q, s = quantize(t)
                stored[name] = q.cpu()
                stored[name + "_scale_inv"] = s.cpu()
            else:
                stored[name] = t.cpu()
            del t
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    save_file(stored, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(src, "config.json")) as f:
        cfg = json.load(f)
    cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3",
                                  "quant_method": "fp8", "weight_block_size": [BLOCK, BLOCK]}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    for name in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if os.path.exists(os.path.join(src, name)):
            shutil.copy(os.path.join(src, name), out)


def load_dequantized(model, fp8_dir):
    """Sets `model`'s projections to the weights the FP8 checkpoint in
    `fp8_dir` decodes to (in the model's dtype)."""
    tensors = load_file(os.path.join(fp8_dir, "model.safetensors"), device="cuda")
    params = dict(model.named_parameters())
    with torch.no_grad():
        for name, q in tensors.items():
            if is_linear(name):
                p = params[name]
                p.copy_(dequantize(q, tensors[name + "_scale_inv"]).to(p.dtype))
