//===- StreamLaunch.cpp - launches checked against their contracts -------===//
//
// Stream::launch on both devices: every argument checked against the
// kernel's parameters (kind, dtype, shape, strides, the bytes a view spans
// inside its buffer, scalars fitting their type), the launch contract
// evaluated for the grid and its rules, programmatic dependent launch where
// the views read before the grid wait are not written by the launches still
// running, and chained kernels (tilec --chain) checked part by part.
//
//===----------------------------------------------------------------------===//

#include "DeviceImpl.h"

#include "tile/runtime/Half.h"

#include <algorithm>
#include <cstring>
#include <limits>

using namespace tile_runtime;

static std::string label(const ManifestKernel &k, int i) {
  return "kernel " + k.name + ": " + argumentLabel(k.contract, i);
}

/// The value of scalar argument `a` in the bits of `dtype` (the low bytes of
/// the 8-byte slot both ABIs read), or an error naming the argument.
static Status scalarBits(const ManifestKernel &k, int i, const Arg &a,
                         DType dtype, uint64_t &bits) {
  if (dtype == DType::F8E4M3)
    return Status::error(label(k, i) + " is an f8e4m3 scalar, which kernels "
                                       "cannot take (only tensors of it)");
  bool isFloat = dtype == DType::F16 || dtype == DType::BF16 ||
                 dtype == DType::F32 || dtype == DType::F64;
  if (isFloat) {
    if (a.kind != Arg::Kind::Float && a.kind != Arg::Kind::Int)
      return Status::error(label(k, i) + " is a " +
                           std::string(toString(dtype)) + " scalar");
    double v = a.kind == Arg::Kind::Float ? a.floatValue
                                          : static_cast<double>(a.intValue);
    switch (dtype) {
    case DType::F16:
      bits = toHalf(static_cast<float>(v));
      break;
    case DType::BF16:
      bits = toBF16(static_cast<float>(v));
      break;
    case DType::F32: {
      float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      bits = u;
      break;
    }
    default:
      std::memcpy(&bits, &v, 8);
    }
    return Status::ok();
  }
  if (a.kind != Arg::Kind::Int)
    return Status::error(label(k, i) + " is an integer (" +
                         std::string(toString(dtype)) +
                         ") scalar: pass Arg::integer");
  int64_t v = a.intValue;
  int width = static_cast<int>(sizeInBytes(dtype)) * 8;
  if (dtype == DType::I1)
    width = 1;
  if (width < 64) {
    int64_t lo = dtype == DType::I1 ? 0 : -(int64_t(1) << (width - 1));
    int64_t hi = dtype == DType::I1 ? 1 : (int64_t(1) << (width - 1)) - 1;
    if (v < lo || v > hi)
      return Status::error(label(k, i) + " = " + std::to_string(v) +
                           " does not fit " + std::string(toString(dtype)));
  }
  bits = static_cast<uint64_t>(v);
  return Status::ok();
}

Status Stream::launch(const Kernel &kernel, std::initializer_list<Arg> args) {
  return launch(kernel, args.begin(), args.size());
}

namespace {
/// What one kernel's arguments check out to.
struct CheckedArgs {
  static constexpr size_t kMaxArgs = 64;
  LaunchArg args[kMaxArgs];
  /// The bytes each view spans (empty for scalars), and those of the
  /// `settled` views, which the kernel may read before its grid wait.
  ByteRange spans[kMaxArgs];
  std::vector<ByteRange> early;
  std::array<int64_t, 3> grid{};
  size_t count = 0;
};
} // namespace

/// Whether the kernel writes what parameter `p` views.
static bool writesView(const ContractParam &p) {
  return p.kind == ContractParam::Kind::View && isExclusive(p.mode);
}

/// Whether a kernel that reads `early` before its grid wait goes out as a
/// programmatic dependent of the launch before it on `stream`.
static bool launchesProgrammatic(const StreamImpl &stream,
                                 const ManifestKernel &meta,
                                 const std::vector<ByteRange> &early) {
  return meta.gridDependencyWait && !meta.gridSync && stream.device->programmaticLaunch &&
         stream.chain.admits(early);
}

/// Lists in `chain` the views the checked launch of `meta` writes.
static void recordWrites(ProgrammaticChain &chain, const ManifestKernel &meta,
                         const CheckedArgs &checked) {
  for (size_t i = 0; i < checked.count; ++i)
    if (writesView(meta.contract.params[i]))
      chain.recordWrite(checked.spans[i]);
}

/// A view argument's buffer, bounds and alignment; its launch form and the
/// bytes it spans (empty for an empty view).
static Status checkView(const StreamImpl &stream, const std::string &what,
                        const Arg &a, DType dtype, LaunchArg &l,
                        ByteRange &span) {
  if (!a.buffer)
    return Status::error(what + ": the buffer is empty");
  const BufferStorage &b = *a.buffer;
  if (b.device.get() != stream.device || b.pinnedHost)
    return Status::error(what + ": the buffer is not memory of this device");
  if (a.rank < 0)
    return Status::error(what +
                         ": shape and strides must have the same rank, at "
                         "most " +
                         std::to_string(kMaxViewRank));
  if (b.dtype != dtype)
    return Status::error(what + " has dtype " + std::string(toString(b.dtype)) +
                         ", expected " + std::string(toString(dtype)));
  // The view must lie inside its buffer: the contract reasons about
  // views, this is what makes a view memory the caller owns.
  int64_t last = a.offset, esize = sizeInBytes(b.dtype);
  bool empty = false;
  for (int d = 0; d < a.rank; ++d) {
    if (a.shape[d] == 0)
      empty = true;
    if (a.shape[d] > 0 && a.strides[d] > 0) {
      if (a.shape[d] - 1 >
          (std::numeric_limits<int64_t>::max() - last) / a.strides[d])
        return Status::error(what + ": the view's extent overflows");
      last += (a.shape[d] - 1) * a.strides[d];
    }
  }
  if (a.offset < 0 || (!empty && last >= b.count))
    return Status::error(what + ": the view reaches element " +
                         std::to_string(last) + " of a buffer of " +
                         std::to_string(b.count) + " elements");
  l.isView = true;
  l.address = b.address + static_cast<uint64_t>(a.offset * esize);
  span = {};
  if (!empty)
    span = {l.address, b.address + static_cast<uint64_t>(last + 1) *
                                       static_cast<uint64_t>(esize)};
  if (l.address % 16 != 0)
    return Status::error(what + ": the view's address is not 16-byte aligned "
                                "(kernels use 16-byte vector accesses)");
  // The contents the contract may read: host memory, or a frozen
  // buffer's host copy.
  l.host = nullptr;
  if (!b.device->isCuda())
    l.host = reinterpret_cast<const char *>(l.address);
  else if ((b.frozen || b.table) && !b.hostMirror.empty())
    l.host = b.hostMirror.data() + a.offset * esize;
  l.dtype = b.dtype;
  l.rank = a.rank;
  l.shape = a.shape;
  l.strides = a.strides;
  return Status::ok();
}

/// Checks `args` against `meta`'s parameters and launch contract.
static Status checkArgs(const StreamImpl &stream, const ManifestKernel &meta,
                        const Arg *args, size_t numArgs, CheckedArgs &out) {
  const auto &params = meta.contract.params;
  if (numArgs != params.size())
    return Status::error("kernel " + meta.name + ": expects " +
                         std::to_string(params.size()) + " arguments, got " +
                         std::to_string(numArgs));
  if (numArgs > CheckedArgs::kMaxArgs)
    return Status::error("kernel " + meta.name + ": more than 64 arguments");
  out.count = numArgs;
  for (size_t i = 0; i < numArgs; ++i) {
    const ContractParam &p = params[i];
    const Arg &a = args[i];
    int idx = static_cast<int>(i);
    LaunchArg &l = out.args[i];
    if (p.kind == ContractParam::Kind::Scalar) {
      if (a.kind == Arg::Kind::Shared || a.kind == Arg::Kind::Exclusive)
        return Status::error(label(meta, idx) + " is a scalar, got a view");
      uint64_t bits = 0;
      if (Status s = scalarBits(meta, idx, a, p.dtype, bits); !s)
        return s;
      l.isView = false;
      // Integers are their (sign-extended) value, as the contract reads
      // them; floats carry their bits.
      l.scalar = static_cast<int64_t>(bits);
      continue;
    }
    if (a.kind != Arg::Kind::Shared && a.kind != Arg::Kind::Exclusive)
      return Status::error(label(meta, idx) + " is a tensor, got a scalar");
    bool exclusive = isExclusive(p.mode);
    if (exclusive != (a.kind == Arg::Kind::Exclusive))
      return Status::error(
          label(meta, idx) + " is " + std::string(toString(p.mode)) +
          (exclusive ? ": the kernel writes it, pass it exclusively "
                       "(Arg::out / Arg::inout / Arg::add / Arg::ticket)"
                     : ": the kernel only reads it, pass it shared (Arg::in)"));
    if (Status s =
            checkView(stream, label(meta, idx), a, p.dtype, l, out.spans[i]);
        !s)
      return s;
    if (exclusive && a.buffer->frozen)
      return Status::error(label(meta, idx) + " is " +
                           std::string(toString(p.mode)) +
                           ": the kernel writes it, but the buffer is frozen "
                           "(Stream::freeze)");
    if (exclusive && a.buffer->table)
      return Status::error(label(meta, idx) + " is " +
                           std::string(toString(p.mode)) +
                           ": the kernel writes it, but the buffer is a "
                           "checked table (Stream::makeTable)");
    if (p.mode == AccessMode::Frozen && !a.buffer->frozen && !a.buffer->table)
      return Status::error(
          label(meta, idx) +
          " is frozen: the kernel reads it through the read-only cache, even "
          "while the grid before it runs; freeze its buffer first "
          "(Stream::freeze)");
    if (p.mode == AccessMode::Settled && out.spans[i].end > out.spans[i].begin)
      out.early.push_back(out.spans[i]);
  }
  std::vector<CheckedDistinct> tables;
  if (Status s = checkLaunch(meta.contract, out.args, numArgs, out.grid, &tables); !s)
    return s;
  // A checked table keeps the rules it met, for its later writes.
  for (const CheckedDistinct &t : tables) {
    BufferStorage &b = *args[t.arg].buffer;
    if (!b.table)
      continue;
    BufferStorage::TableRule r{args[t.arg].offset, args[t.arg].shape[0],
                               args[t.arg].strides[0], t.lo, t.hi, t.rule};
    auto same = [&](const BufferStorage::TableRule &o) {
      return o.offset == r.offset && o.count == r.count && o.stride == r.stride &&
             o.lo == r.lo && o.hi == r.hi;
    };
    if (std::none_of(b.tableRules.begin(), b.tableRules.end(), same))
      b.tableRules.push_back(std::move(r));
  }
  return Status::ok();
}

Status Stream::launch(const Kernel &kernel, const Arg *args, size_t numArgs) {
  if (!impl)
    return Status::error("launch: no stream");
  if (!kernel.impl)
    return Status::error("launch: no kernel");
  const KernelImpl &k = *kernel.impl;
  const ManifestKernel &meta = k.meta;
  if (k.device.get() != impl->device)
    return Status::error("kernel " + meta.name +
                         ": loaded on another device than the stream's");
  if (!k.parts.empty())
    return launchChain(k, args, numArgs);
  CheckedArgs checked;
  if (Status s = checkArgs(*impl, meta, args, numArgs, checked); !s)
    return s;
  CheckedLaunch launch;
  launch.kernel = &k;
  launch.grid = checked.grid;
  if (launch.grid[0] == 0 || launch.grid[1] == 0 || launch.grid[2] == 0)
    return Status::ok(); // an empty problem
  launch.args = checked.args;
  launch.numArgs = numArgs;
  launch.programmatic = launchesProgrammatic(*impl, meta, checked.early);
  if (Status s = impl->launch(launch); !s)
    return s;
  if (!launch.programmatic)
    impl->chain.restart(); // it waits for everything queued before it
  recordWrites(impl->chain, meta, checked);
  keepCaptured(args, numArgs);
  return Status::ok();
}

void Stream::keepCaptured(const Arg *args, size_t numArgs) {
  if (!impl->isCapturing)
    return;
  impl->capturedLaunches++;
  for (size_t i = 0; i < numArgs; ++i)
    if (args[i].buffer)
      impl->capturedBuffers.push_back(args[i].buffer);
}

// A chain: each part's arguments and contract as if launched alone, then
// one launch of the chained kernel (docs/runtime.md).
Status Stream::launchChain(const KernelImpl &k, const Arg *args,
                           size_t numArgs) {
  const ManifestKernel &meta = k.meta;
  const size_t parts = k.parts.size();
  std::vector<CheckedArgs> checked(parts);
  size_t first = 0;
  for (size_t p = 0; p < parts; ++p) {
    const ManifestKernel &part = k.parts[p]->meta;
    size_t n = part.contract.params.size();
    if (first + n > numArgs)
      return Status::error(
          "kernel " + meta.name + ": expects the arguments of " +
          "its parts and the chain's counters, got " + std::to_string(numArgs));
    if (Status s = checkArgs(*impl, part, args + first, n, checked[p]); !s)
      return s;
    const std::array<int64_t, 3> &g = checked[p].grid;
    if (g[0] == 0 || g[1] == 0 || g[2] == 0)
      return Status::error("kernel " + meta.name + ": part " + part.name +
                           " has an empty grid (launch the parts alone)");
    first += n;
  }
  if (first + 1 != numArgs)
    return Status::error(
        "kernel " + meta.name + ": expects " + std::to_string(first + 1) +
        " arguments (its parts', then the chain's counters), got " +
        std::to_string(numArgs));
  // A later part reads its settled views before it waits for the earlier
  // parts: none of them may write those bytes.
  std::vector<ByteRange> early;
  for (size_t p = 0; p < parts; ++p) {
    for (const ByteRange &r : checked[p].early)
      for (size_t q = 0; q < p; ++q)
        for (size_t i = 0; i < checked[q].count; ++i) {
          const ContractParam &w = k.parts[q]->meta.contract.params[i];
          if (writesView(w) && checked[q].spans[i].overlaps(r))
            return Status::error(
                "kernel " + meta.name + ": part " + k.parts[p]->meta.name +
                " reads a settled view that part " + k.parts[q]->meta.name +
                " writes ('" + w.name + "')");
        }
    early.insert(early.end(), checked[p].early.begin(), checked[p].early.end());
  }
  const Arg &counters = args[numArgs - 1];
  const std::string what = "kernel " + meta.name + ": the chain's counters";
  if (counters.kind != Arg::Kind::Exclusive)
    return Status::error(what + " are written: pass them as Arg::ticket");
  LaunchArg countersArg;
  ByteRange countersSpan;
  if (Status s = checkView(*impl, what, counters, DType::I32, countersArg,
                           countersSpan);
      !s)
    return s;
  if (counters.rank != 1 || counters.strides[0] != 1 ||
      counters.shape[0] < static_cast<int64_t>(parts + 1))
    return Status::error(what + " must be a contiguous row of at least " +
                         std::to_string(parts + 1) +
                         " (one more than the parts)");
  if (counters.buffer->frozen || counters.buffer->table)
    return Status::error(what + " are written, but the buffer is frozen or a checked table");
  for (size_t p = 0; p < parts; ++p)
    for (size_t i = 0; i < checked[p].count; ++i)
      if (checked[p].spans[i].overlaps(countersSpan))
        return Status::error(what + " overlap argument '" +
                             k.parts[p]->meta.contract.params[i].name +
                             "' of " + k.parts[p]->meta.name);

  // Where the device has the chained code (CUDA), one grid; else (the CPU
  // device) the parts one after another.
  bool programmatic = false;
  if (k.function) {
    std::vector<LaunchArg> all;
    int64_t programs = 0;
    for (size_t p = 0; p < parts; ++p) {
      all.insert(all.end(), checked[p].args,
                 checked[p].args + checked[p].count);
      const std::array<int64_t, 3> &g = checked[p].grid;
      programs += g[0] * g[1] * g[2];
    }
    all.push_back(countersArg);
    for (size_t p = 0; p < parts; ++p)
      for (int d = 0; d < 3; ++d) {
        LaunchArg extent;
        extent.isView = false;
        extent.scalar = checked[p].grid[d];
        all.push_back(extent);
      }
    // The devices pack at most that many parameters.
    if (all.size() > CheckedArgs::kMaxArgs)
      return Status::error("kernel " + meta.name + ": more than " +
                           std::to_string(CheckedArgs::kMaxArgs) +
                           " parameters (its parts', the counters and the "
                           "parts' extents)");
    if (programs > std::numeric_limits<int32_t>::max())
      return Status::error("kernel " + meta.name + ": " +
                           std::to_string(programs) +
                           " programs exceed the CUDA grid limits");
    CheckedLaunch launch;
    launch.kernel = &k;
    launch.grid = {programs, 1, 1};
    launch.args = all.data();
    launch.numArgs = all.size();
    launch.programmatic = programmatic =
        launchesProgrammatic(*impl, meta, early);
    if (Status s = impl->launch(launch); !s)
      return s;
  } else {
    for (size_t p = 0; p < parts; ++p) {
      CheckedLaunch launch;
      launch.kernel = k.parts[p].get();
      launch.grid = checked[p].grid;
      launch.args = checked[p].args;
      launch.numArgs = checked[p].count;
      if (Status s = impl->launch(launch); !s)
        return s;
    }
  }
  if (!programmatic)
    impl->chain.restart();
  for (size_t p = 0; p < parts; ++p)
    recordWrites(impl->chain, k.parts[p]->meta, checked[p]);
  impl->chain.recordWrite(countersSpan);
  keepCaptured(args, numArgs);
  return Status::ok();
}
