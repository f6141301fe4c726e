"""Registers per kernel of a CUDA cubin (EIATTR_REGCOUNT in .nv.info):
    python3 cubin_registers.py KERNELS.cubin [NAME_SUBSTRING]"""
import sys, struct
# Registers per kernel in a CUDA cubin: EIATTR_REGCOUNT (0x2f) in .nv.info.
data = open(sys.argv[1], 'rb').read()
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
secs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
stroff = secs[shstrndx][4]
nm = lambda n: data[stroff + n: data.index(b'\0', stroff + n)].decode()
symtab = [s for s in secs if s[1] == 2][0]
strtab = secs[symtab[6]]
def sym(i):
    o = symtab[4] + i * 24
    n, = struct.unpack_from('<I', data, o)
    return data[strtab[4] + n: data.index(b'\0', strtab[4] + n)].decode()
pat = sys.argv[2] if len(sys.argv) > 2 else ''
for s in secs:
    if nm(s[0]) != '.nv.info': continue
    o, end = s[4], s[4] + s[5]
    while o < end:
        fmt, attr, size = struct.unpack_from('<BBH', data, o)
        if fmt == 4:
            if attr == 0x2f:
                fi, regs = struct.unpack_from('<II', data, o + 4)
                if pat in sym(fi): print(sym(fi), regs)
            o += 4 + size
        else:
            o += 4 if fmt in (3,) else 4
