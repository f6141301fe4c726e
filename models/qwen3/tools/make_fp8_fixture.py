#!/usr/bin/env python3
"""Makes the committed FP8 test model from the committed tiny bf16 one: its
linear layers quantized in the fine-grained FP8 layout of Qwen/Qwen3-*-FP8
checkpoints (F8_E4M3 weights, one weight_scale_inv per 128 x 128 block,
scale_inv = amax / 448, quantization_config as those checkpoints write it),
with the scales stored in F32, BF16 and F16 (all three occur in published
checkpoints) and one module left 16-bit through modules_to_not_convert.
Golden outputs: transformers' Qwen3ForCausalLM in bf16 on the weights the
checkpoint decodes to (W_fp8 * scale_inv, rounded to bf16), the prompt and
33 greedy steps, full forward per step, as make_tiny_fixture.py does. Run
on the GPU machine (PyTorch + transformers); the output is committed as
test/fixtures/tiny-fp8.

    python3 models/qwen3/tools/make_fp8_fixture.py test/fixtures/tiny-bf16 OUTDIR
"""
import json
import os
import shutil
import sys

import torch
from safetensors.torch import load_file, save_file
from transformers import Qwen3Config, Qwen3ForCausalLM

src, out = sys.argv[1], sys.argv[2]
BLOCK = 128
NOT_CONVERTED = ["model.layers.1.mlp.down_proj"]
SCALE_DTYPES = {"q_proj": torch.float32, "k_proj": torch.float32, "v_proj": torch.float32,
                "o_proj": torch.bfloat16, "gate_proj": torch.bfloat16, "up_proj": torch.bfloat16,
                "down_proj": torch.float16}
LINEARS = tuple(SCALE_DTYPES)


def quantize(w):
    """(e4m3 weight, scale_inv [ceil(out/128), ceil(in/128)] in f32)."""
    rows, cols = w.shape
    br, bc = -(-rows // BLOCK), -(-cols // BLOCK)
    q = torch.empty(rows, cols, dtype=torch.float8_e4m3fn)
    s = torch.empty(br, bc, dtype=torch.float32)
    for i in range(br):
        for j in range(bc):
            blk = w[i * BLOCK:(i + 1) * BLOCK, j * BLOCK:(j + 1) * BLOCK].float()
            amax = blk.abs().max().clamp(min=1e-12)
            s[i, j] = amax / 448.0
            q[i * BLOCK:(i + 1) * BLOCK, j * BLOCK:(j + 1) * BLOCK] = (blk / s[i, j]).to(
                torch.float8_e4m3fn)
    return q, s


def dequantize(q, s):
    rows, cols = q.shape
    full = s.float().repeat_interleave(BLOCK, 0)[:rows].repeat_interleave(BLOCK, 1)[:, :cols]
    return q.float() * full


tensors = load_file(os.path.join(src, "model.safetensors"))
stored, decoded = {}, {}
for name, t in tensors.items():
    module = name.rsplit(".", 1)[0]
    kind = module.rsplit(".", 1)[-1]
    if name.endswith(".weight") and kind in LINEARS and \
            not any(n in module for n in NOT_CONVERTED):
        q, s = quantize(t)
        s = s.to(SCALE_DTYPES[kind])
        stored[name] = q
        stored[module + ".weight_scale_inv"] = s
        decoded[name] = dequantize(q, s).to(torch.bfloat16)
    else:
        stored[name] = t
        decoded[name] = t
os.makedirs(out, exist_ok=True)
save_file(stored, os.path.join(out, "model.safetensors"), metadata={"format": "pt"})
with open(os.path.join(src, "config.json")) as f:
    cfg = json.load(f)
cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3",
                              "quant_method": "fp8", "weight_block_size": [BLOCK, BLOCK],
                              "modules_to_not_convert": NOT_CONVERTED}
with open(os.path.join(out, "config.json"), "w") as f:
    json.dump(cfg, f, indent=2)
for f in ["tokenizer.json", "tokenizer_config.json", "generation_config.json"]:
    shutil.copy(os.path.join(src, f), out)

golden = json.load(open(os.path.join(src, "golden.json")))
config = Qwen3Config(**{k: v for k, v in cfg.items()
                        if k not in ("quantization_config", "dtype", "torch_dtype")})
m = Qwen3ForCausalLM(config).to(torch.bfloat16)
missing, unexpected = m.load_state_dict(decoded, strict=False)
assert not unexpected and all("lm_head" in k for k in missing), (missing, unexpected)
m.tie_weights()
m = m.cuda().eval()
seq = list(golden["prompt_ids"])
tokens, logits = [], []
with torch.no_grad():
    for _ in range(golden["steps"]):
        lg = m(torch.tensor([seq], device="cuda")).logits[0, -1]
        logits.append(lg.float().cpu())
        t = int(torch.argmax(lg).item())
        tokens.append(t)
        seq.append(t)
torch.stack(logits).numpy().astype("<f4").tofile(os.path.join(out, "golden_logits.f32"))
golden.update(greedy_tokens=tokens,
              note="transformers Qwen3ForCausalLM in bf16 on the dequantized FP8 weights, "
                   "full forward per step")
with open(os.path.join(out, "golden.json"), "w") as f:
    json.dump(golden, f, indent=1)
print("fp8 tokens", tokens[:10], "...")
