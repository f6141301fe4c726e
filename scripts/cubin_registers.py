#!/usr/bin/env python3
"""Registers per thread of each kernel in a tilec kernel set, and how many
of its programs fit an SM by registers (Hopper: 64K registers, per-warp
allocation in units of 256, at most 64 warps and 32 blocks per SM).

    scripts/cubin_registers.py KERNELS.json [--kernel PREFIX]
                               [--min-programs-per-sm N]

KERNELS.json is tilec's manifest (its num_warps per kernel; the CUBIN is
the artifact beside it). The counts come from the CUBIN's .nv.info
(EIATTR_REGCOUNT), so no CUDA tool or GPU is needed. With
--min-programs-per-sm, every listed kernel must fit N programs per SM by
registers, else the script names it and exits 1: a grid sized to about N
programs per SM runs as two waves when it does not (decode_attention in
bf16, a few registers past the line, ran much slower than in f16; see
bench/results/2026-11-22-decode-attention-tiers-h200.md).
"""
import argparse
import json
import os
import struct
import sys

EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 4


def fail(msg):
    print(f"cubin_registers: error: {msg}", file=sys.stderr)
    sys.exit(2)


def register_counts(path):
    """{kernel: registers} from an ELF64 CUBIN's .nv.info section."""
    try:
        b = open(path, "rb").read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    if len(b) < 64 or b[:4] != b"\x7fELF" or b[4] != 2:
        fail(f"{path}: not an ELF64 CUBIN")
    try:
        shoff = struct.unpack_from("<Q", b, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
                for i in range(shnum)]

        def name(off, table):
            return b[table + off: b.index(b"\0", table + off)].decode()

        shstr = secs[shstrndx][4]
        symtab = next(s for s in secs if s[1] == 2)  # SHT_SYMTAB
        strtab = secs[symtab[6]][4]
        syms = [name(struct.unpack_from("<I", b, symtab[4] + i * 24)[0], strtab)
                for i in range(symtab[5] // 24)]
        counts = {}
        for s in secs:
            if name(s[0], shstr) != ".nv.info":
                continue
            off, end = s[4], s[4] + s[5]
            while off + 4 <= end:
                fmt, attr, size = struct.unpack_from("<BBH", b, off)
                if fmt != EIFMT_SVAL:
                    off += 4
                    continue
                if attr == EIATTR_REGCOUNT:
                    sym, regs = struct.unpack_from("<II", b, off + 4)
                    counts[syms[sym]] = regs
                off += 4 + size
        return counts
    except (struct.error, IndexError, StopIteration, ValueError,
            UnicodeDecodeError):
        fail(f"{path}: malformed CUBIN (section or symbol table)")


def programs_per_sm(regs, warps):
    """Programs of `warps` warps an SM holds by registers and warp slots."""
    per_warp = -(-max(regs, 1) * 32 // 256) * 256
    return min(32, 64 // warps, (65536 // per_warp) // warps)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest")
    ap.add_argument("--kernel", default="", help="only kernels whose name starts so")
    ap.add_argument("--min-programs-per-sm", type=int, default=0)
    args = ap.parse_args()
    try:
        manifest = json.load(open(args.manifest))
        kernels = {k["name"]: int(k.get("num_warps", 4)) for k in manifest["kernels"]}
        cubin = os.path.join(os.path.dirname(args.manifest), manifest["artifact"])
    except OSError as e:
        fail(f"{args.manifest}: {e.strerror}")
    except (ValueError, KeyError, TypeError):
        fail(f"{args.manifest}: not a tilec manifest (kernels, artifact)")
    counts = register_counts(cubin)
    chosen = sorted(k for k in kernels if k.startswith(args.kernel))
    if not chosen:
        fail(f"{args.manifest}: no kernel named {args.kernel}*")
    bad = []
    for k in chosen:
        if k not in counts:
            fail(f"{cubin}: no register count for kernel '{k}'")
        n = programs_per_sm(counts[k], kernels[k])
        print(f"{k:48s} {counts[k]:4d} registers {kernels[k]:3d} warps "
              f"{n:3d} programs/SM")
        if n < args.min_programs_per_sm:
            bad.append(f"{k}: {counts[k]} registers x {kernels[k]} warps fit "
                       f"{n} programs per SM, fewer than {args.min_programs_per_sm}")
    for line in bad:
        print(f"cubin_registers: {line}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
