//===- Passes.td - tile conversion passes ------------------*- tablegen -*-===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToSCF : Pass<"convert-tile-to-scf", "::mlir::ModuleOp"> {
  let summary = "lowers tile kernels to func/scf/tensor/memref (the host path)";
  let description = [{
    The first step of the CPU execution path, which defines the reference
    semantics of the dialect. Each verified `tile.kernel @k` becomes

    * `func.func @k(views as strided memrefs..., scalars..., pid_x, pid_y,
      pid_z, nprog_x, nprog_y, nprog_z)`: one program (C interface emitted,
      so a host can run programs in parallel), and
    * `func.func @k_grid(views..., scalars..., nprog_x, nprog_y, nprog_z)`:
      runs every program of the grid in order (C interface emitted), the
      entry point of the JIT and of the host shared object.

    Views become memrefs with their static dims and strides (dynamic ones as
    `?`). Tile values stay tensors: loads and gathers are `tensor.generate`s
    that read in-bounds elements and yield the padding value elsewhere;
    stores are loops that write only in-bounds elements; shape ops become
    `tensor` ops or `tensor.generate` index maps; reductions become loops
    that apply the combiner in index order; `tile.dot` becomes
    `linalg.matmul`; `tile.convert` becomes `arith` casts (float to integer
    saturating, NaN to 0). Element-wise `arith`/`math` on tensors is left for
    `convert-elementwise-to-linalg`. `tile.grid` and `tile.assume` are
    dropped: the launch contract is checked before the call.

    Kernels must have passed `tile-verify-ownership` (the pipelines run it
    first); the pass fails on a kernel that is not marked verified unless
    `allow-unverified` is set.
  }];
  let options = [
    Option<"allowUnverified", "allow-unverified", "bool", /*default=*/"false",
           "lower kernels not marked tile.ownership_verified (tests only)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::math::MathDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "::mlir::ModuleOp"> {
  let summary = "lowers tile kernels to gpu.func, one program per thread block";
  let description = [{
    Each verified `tile.kernel @k` becomes `gpu.func @k` (a kernel) in
    `gpu.module @<module-name>`, taking its views as strided memrefs and its
    scalars as they are. A program runs as one thread block of
    `32 * num-warps` threads; `tile.program_id` / `tile.num_programs` are the
    block id and grid size. The body is lowered by the dialect conversion:
    every op of the kernel is illegal, and each op kind has one pattern,
    grouped by family (control flow, global memory, element-wise, shape
    ops, reductions, dots), which follows the plans the `tile-plan-*`
    passes wrote on the ops.

    Tiles are distributed over the block by one layout that depends only on
    the shape: row-major vectors of up to 8 consecutive elements of the last
    dim, vector position `p` held by thread `p % T` in slot `p / T`. So:

    * element-wise `arith`/`math` and `tile.convert` act on each thread's
      registers with no data movement;
    * loads and stores of partitions and claimed blocks are vector-wide
      (16 bytes for f16/bf16 when the view's inner stride is 1 and the
      other strides are multiples of the vector: statically, or checked once
      at run time for dynamic strides), coalesced across the block, with
      per-element masking and padding at view edges;
    * reductions along the last dim (or along a dim followed only by unit
      dims) combine within each thread, then across threads with
      `gpu.shuffle xor` and, beyond a warp, shared memory;
    * results that each thread can already hold skip shared memory: a row
      of one vector per thread is folded into that thread's own result
      slot; a single row's result stays in every thread of its shuffle
      group (lane 0 gives it to the rest of the warp); a single-element
      load is issued by every thread; element-wise ops keep the fewest
      threads of their operands, loops and ifs the fewest of their values.
      A broadcast of a single-element tile held by every thread with
      positions in the result, a broadcast of an [..., R, 1] column over
      rows of one vector, and an extract of a single element held by every
      thread are then register splats;
    * a reduction along a dim with others after it (a column reduction:
      `[S, HD]` partials summed over S) whose threads each hold the same
      columns in all their slots is folded in each thread's registers,
      combined across the lanes of a warp with `gpu.shuffle xor`, and
      across warps through shared memory (one partial per warp and
      column);
    * a slice, concat, reshape, broadcast or permute whose operands and
      result all fit the first warp (at most 32 vector positions each)
      moves its elements with `gpu.shuffle idx`: which source element each
      result element takes is known at compile time, so each result lane
      takes one shuffle per run of threads whose source index is affine in
      the thread id (and per source lane that run reads), at most 64 per
      op. RoPE's rotate-half of a head (two slices and a concat) is 24
      shuffles instead of 6 barriers. A `tile.roll` along the last dim by
      whole vectors, on a tile of any size whose rows each lie on up to 32
      lanes of one warp, is one `gpu.shuffle idx` per register (the same
      slot of a lane of the row's warp);
    * a broadcast of a tile loaded from an `in` view (seen through
      reshapes that add or drop unit dims) is loaded again in the
      broadcast's layout: each thread loads what it holds, repeats hit L1.
      Element-wise work on such loads is not recomputed there: a converted
      GEMV input streamed weights slower recomputed than through shared
      memory ([results](../../bench/results/2026-11-22-decode-pdl-h200.md));
    * other broadcasts, permute, slice, concat, extract, gather, other
      reductions and `tile.dot` move data through one shared-memory
      scratch arena (barriers around each use);
    * `in` views get `llvm.readonly` and verified kernels
      `tile.invariant_inputs`, for `tile-mark-invariant-loads`;
    * `tile.dot` on f16/bf16 with an f32 accumulator, M a multiple of
      16 x warps, N and K multiples of 16, at most 128 accumulator and A
      elements per thread and 48 KB of staging, runs on tensor cores with
      fragment layouts where `tile-plan-fragments` planned them: the accumulator
      lives in the registers `mma.sync` m16n8k16 writes (warp w owns rows
      16w .. 16w + 15 of each 16 x warps block), the A operand is the same
      layout of M x K (so P of flash attention feeds the second dot as
      computed), and B is staged in shared memory with rows padded by 16
      bytes and read with `ldmatrix` (transposed for a K x N operand; a
      `permute [1, 0]` that only feeds dots as B is folded into an
      untransposed read of its source). The layouts spread from the dots
      (Triton's propagation, cut down): element-wise ops keep them,
      broadcasts of M x 1 and 1 x N tiles become register shuffles, row
      reductions become two shuffles within a quad, loop-carried values
      stay in registers, iotas are computed per register. Where an op
      needs the flat layout (a store, a load's use), the tile moves
      through shared memory by element index. Without fragments, dots
      whose operands and accumulator fit 48 KB of shared memory use
      `nvgpu.mma.sync` (f16) with everything staged there; other dots use
      f32 FMAs.

    A fragment dot planned as `tile.fragment_dot = "wgmma"` (by
    `tile-plan-fragments` with `wgmma-dots`, sm_90a) runs as
    `wgmma.mma_async` m64nNk16 with A from registers: the fragment layouts
    are already wgmma's accumulator and A layouts. B is staged in shared
    memory with the 128-byte swizzle in 64-element panels of its
    contiguous dim (K-major for a folded permute, MN-major, wgmma's
    transposed B, otherwise; that dim must be a multiple of 64), fenced
    for the async proxy, and read by the tensor cores through a matrix
    descriptor, with no `ldmatrix`. Every accumulator and A register is
    pinned before `wgmma.fence` (an empty asm claiming to rewrite it) and
    the results after the wait, so no other instruction writes them inside
    the group: ptxas otherwise serializes it, a wait after each wgmma. A
    zero accumulator is not read (scale-d 0 on the first step). Each dot
    waits for its group. Qwen3's prompt attention measured faster a layer
    this way (ncu on an H200:
    [results](../../bench/results/2026-11-23-wgmma-attention.md)).

    A wgmma dot in an innermost `scf.for` whose B load
    `tile-plan-async-operands` marked `tile.copy_ahead` is fed by `cp.async` (16
    bytes, `.cg`) straight into a buffer of its own in the swizzled layout:
    the loop is rotated so that iteration `j + 1`'s copies are issued right
    after iteration `j`'s dot has read the buffer (a barrier, then the
    copies under `iv + step < ub`, one commit group), and the first
    iteration's before the loop. Each of the loop's R operands commits one
    group per iteration, so each dot waits with `cp.async.wait_group R - 1`,
    a proxy fence and a barrier. The load's registers (a flash attention's
    whole K or V block) and its store into shared memory go away, and the
    copies fly behind the rest of the body. Moving a load earlier is sound
    because nothing writes a read-only view while the kernel runs. The
    buffers sit at the start of the scratch space; the body's other scratch
    users start past them.

    A kernel that carries a `tile.hopper_matmul` plan (written by
    `tile-plan-hopper-matmul`, which the sm_90a pipeline runs) -- a tiled matmul,
    a K loop from a zero accumulator of
    `acc = dot(load(x[m, k]), permute(load(w[n, k]), [1, 0]), acc)` over
    `[bm, 64]` and `[bn, 64]` tiles of f16 or bf16 `in` views, the result
    converted to their type and stored to the owned tile `y[m, n]`, bm 64
    or 128, bn a multiple of 8 up to 256 -- runs as a warp-specialized
    kernel instead (`tile::planHopperMatmul`): 128 * (1 + bm / 64)
    threads; warpgroup 0 lowers its registers (`setmaxnreg`) and its first
    thread issues TMA loads (`cp.async.bulk.tensor`, 128-byte swizzle) of
    both tiles into a ring of shared-memory stages, each with a full and an
    empty `mbarrier`; each other warpgroup takes 64 rows of the output tile,
    waits for a stage's full barrier, issues four `wgmma.mma_async`
    m64n{bn}k16 from it (f32 accumulators in registers, one group kept in
    flight) and releases the previous stage. The epilogue stores pairs of
    converted values with the usual bounds masking. TMA reads outside a
    view as zeros, the padding `tile.load` specifies. The TMA descriptors
    of x and w are two extra trailing parameters (`!llvm.ptr`, marked by
    `tile.tensor_map_params` for `tile-grid-constant-params`), which the
    runtime encodes at launch; the dynamic shared memory
    (`__tile_dynamic_shared`) is sized by the same plan.

    All control flow in a tile kernel is uniform across the block (no value
    differs between the threads of one program at the tile level), so the
    barriers are always reached by every thread.

    With `grid-dependency-control` (sm_90 and later), every kernel begins
    with `griddepcontrol.launch_dependents` followed by
    `griddepcontrol.wait` (nothing runs until the grids it depends on have
    completed and their writes are visible), and is marked
    `tile.waits_for_prior_grid`. Such a kernel may be launched with
    programmatic stream serialization: its blocks are scheduled while the
    previous kernel still runs, which hides launch latency between graph
    nodes without weakening any ordering, since no instruction before the
    wait touches memory. Triggering before the wait lets a chain of short
    kernels be scheduled ahead of the running one (each waits for its
    predecessor, which completes only after its own wait, so the order is
    transitive); on an H200 this measured faster Qwen3-8B decode than
    triggering after the wait
    ([results](../../bench/results/2026-11-22-decode-pdl-h200.md)).

    A kernel whose body opens with `tile.prefetch` ops issues them before
    its wait (the wait goes before the first op that touches memory other
    than by prefetching). A prefetch only asks for lines in L2, the GPU's
    point of coherence, and changes no value, so nothing can read data of
    the previous grid early; a GEMV launched as a programmatic dependent
    starts streaming its first weight tiles while the kernel before it
    runs.

    A kernel with `tile.min_programs_per_sm = n` (the .tile builtin
    `min_programs_per_sm(n)`) gets `nvvm.minctasm = n`, emitted as
    `.minnctapersm`: ptxas caps the registers per thread so that n programs
    fit on an SM. For a grid sized to about one wave this is the difference
    between one wave and two (Qwen3's decode attention in bf16 fit one
    program fewer per SM than its grid was sized for, and its last programs
    ran as a second wave:
    [results](../../bench/results/2026-11-22-decode-attention-tiers-h200.md)).

    Where a kernel was eligible to try a fast path and did not get it (the
    Hopper GEMM, wgmma dots, fragment dots, async-copied dot operands,
    vector accesses), the pass emits a missed optimisation remark naming
    the condition that failed, and where it took one a passed remark with
    the plan (MLIR's remark engine, category `convert-tile-to-gpu`: off
    unless enabled, e.g. `--remarks-filter=convert-tile-to-gpu
    --remark-format=emitRemark`; `tilec --remarks`, `tilec --explain`).
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "warps per program (thread block); a kernel's tile.num_warps "
           "attribute overrides it">,
    Option<"moduleName", "module-name", "std::string",
           /*default=*/"\"tile_kernels\"", "name of the gpu.module">,
    Option<"allowUnverified", "allow-unverified", "bool", /*default=*/"false",
           "lower kernels not marked tile.ownership_verified (tests only)">,
    Option<"gridDependencyControl", "grid-dependency-control", "bool",
           /*default=*/"false",
           "begin each kernel with griddepcontrol.wait / launch_dependents "
           "(sm_90+), so it may be launched as a programmatic dependent">,
    Option<"l2Prefetch", "l2-prefetch", "bool", /*default=*/"true",
           "lower tile.prefetch to prefetch.global.L2 (sm_90 and later; "
           "a hint, dropped where off)">,
    Option<"f8Conversions", "f8-conversions", "bool", /*default=*/"false",
           "widen f8E4M3FN tiles with cvt.rn.f16x2.e4m3x2, two elements an "
           "instruction (sm_89 and later), instead of integer operations">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def PlanFragments : Pass<"tile-plan-fragments", "::tile::KernelOp"> {
  let summary = "decides which tiles live in mma fragment layouts, as IR";
  let description = [{
    Around each dot that can run on tensor cores with its operands in
    registers (f16 or bf16 into f32, rows a multiple of 16 per warp, N and
    K multiples of 16, within the register and shared-memory budgets), the
    accumulator and A take the mma `m16n8k16` accumulator layout, and the
    layouts spread to a fixed point along element-wise ops, broadcasts of
    row and column vectors, row reductions, unit-dim reshapes and loops
    (Triton's layout propagation, cut down to what flash attention needs).
    The plan is written as attributes that `convert-tile-to-gpu` follows:

    * `tile.fragment_dot` on each such dot: `"wgmma"` where it runs as
      register-A wgmma (`wgmma-dots`, sm_90a: the result one 64-row slab
      per warpgroup, warps a multiple of 4, N a multiple of 8 up to 256, K
      of 16, B's contiguous dim whole 64-element swizzle panels), else
      `"mma_sync"`;
    * `tile.flat_dot` on every other dot, whose operands and accumulator
      go through shared memory at the dot: `"mma_sync"` where staged
      mma.sync can run (f16 operands, M, N and K multiples of 16, 8 and
      16, A, B and the f32 accumulator within 48 KB), else `"fma"`;
    * `tile.folded_permute` on a `[1, 0]` permute that only feeds such dots
      as B (the dot reads its source transposed from shared memory);
    * `tile.fragments` on each op with a tile result in a fragment layout,
      one entry per result: `{kind = "acc", m, n, warps}`, `{kind = "rows",
      m, warps}`, `{kind = "cols", n, warps}`, or a unit attribute for a
      flat tile; `tile.iter_arg_fragments` likewise on an `scf.for` for its
      region's iter_args.

    A kernel that carries a plan (pinned by hand: a dot with
    `tile.fragment_dot` or `tile.flat_dot`) keeps it, checked: every layout
    must fit its tile and be for the kernel's warps; its dots without a
    path get their `tile.flat_dot`. Kernels with a
    Hopper matmul plan are left alone (they have no fragment tiles). Where
    a dot does not get fragments, with `wgmma-dots` does not get wgmma, or
    runs on FMAs, a missed optimisation remark names the condition that
    failed. Without this pass every dot moves its operands and accumulator
    through shared memory, on staged mma.sync where it can run.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "warps per program, as convert-tile-to-gpu's (a kernel's "
           "tile.num_warps attribute overrides it)">,
    Option<"wgmmaDots", "wgmma-dots", "bool", /*default=*/"false",
           "run fragment dots whose rows are one 64-row slab per "
           "warpgroup as wgmma with A from registers and B staged in "
           "shared memory with the 128-byte swizzle, instead of mma.sync "
           "on ldmatrix fragments (sm_90a)">,
  ];
}

def PlanAsyncOperands : Pass<"tile-plan-async-operands", "::tile::KernelOp"> {
  let summary = "decides which wgmma dots' B loads are copied ahead, as IR";
  let description = [{
    In a kernel with a fragment plan (`tile-plan-fragments`), the B operand
    of a wgmma dot (`tile.fragment_dot = "wgmma"`) in an innermost `scf.for`
    that is a tile loaded in the same body (through reshapes and a folded
    permute, each used once) from a read-only view made before the loop,
    proven in bounds (`tile.in_bounds`), 16-bit elements in whole 16-byte
    vectors, its indices the induction variable or loop-invariant, gets
    `tile.copy_ahead` on its load: `convert-tile-to-gpu` copies exactly
    such loads one iteration ahead with `cp.async` into the dot's swizzled
    buffer. A mark already present (pinned by hand) is checked. Where a
    wgmma dot's B is not copied ahead, a missed optimisation remark names
    the condition that failed.
  }];
  let options = [
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"4",
           "warps per program, as convert-tile-to-gpu's (a kernel's "
           "tile.num_warps attribute overrides it)">,
  ];
}

def PlanHopperMatmul : Pass<"tile-plan-hopper-matmul", "::tile::KernelOp"> {
  let summary = "decides which kernels run as Hopper TMA + wgmma GEMMs, as IR";
  let description = [{
    A verified kernel whose body is a tiled matmul the Hopper lowering
    supports (`tile::planHopperMatmul`: a K loop of dots into a zero
    accumulator over f16/bf16 tiles of `in` views, its bounds any values
    computed before it (a program's share of K in a split-K GEMM), an
    element-wise epilogue, one owned store in the operands' type or f32)
    gets its plan as the attribute `tile.hopper_matmul`: the tile
    (`bm`, `bn`, `bk`), the shared-memory ring depth (`stages`) and the
    consumer warpgroups (`consumers`). `convert-tile-to-gpu` lowers exactly
    the kernels that carry it, and tilec's manifest takes block size,
    shared memory and TMA descriptors from the same plan.

    A kernel may pin a plan by hand, for experiments: an attribute already
    present is kept, its `stages` (2 to what fits the 227 KB of shared
    memory) overriding the default; one the body does not fit, or with
    other tile sizes than the body's, is an error. Where a kernel with a
    dot in a loop gets no plan, a missed optimisation remark says which
    condition failed.

    ```mlir
    tile.kernel @matmul(...) attributes {tile.hopper_matmul = {bk = 64 : i64,
        bm = 64 : i64, bn = 128 : i64, consumers = 1 : i64, stages = 8 : i64}}
    ```
  }];
}

def MarkInvariantLoads : Pass<"tile-mark-invariant-loads"> {
  let summary = "marks loads through the read-only inputs of verified kernels invariant";
  let description = [{
    Runs on the LLVM dialect form of GPU kernels (after
    `convert-gpu-to-nvvm`). In a kernel that `convert-tile-to-gpu` marked
    `tile.invariant_inputs` (its ownership was verified), pointer arguments
    marked `llvm.readonly` come from `in` views: the kernel never writes
    them, and the launch contract rules out any exclusive argument
    overlapping them, so nothing writes that memory while the kernel runs.
    Every `llvm.load` whose address is derived from such an argument
    (through `getelementptr`, casts, and descriptor `insertvalue` /
    `extractvalue` pairs) gets the `invariant` flag (`!invariant.load`),
    which the NVPTX backend turns into non-coherent `ld.global.nc` loads
    through the read-only data path.

    Example (after the pass):

    ```mlir
    %v = llvm.load %p invariant {alignment = 16 : i64} : !llvm.ptr -> vector<8xf16>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GridConstantParams : Pass<"tile-grid-constant-params"> {
  let summary = "passes a GPU kernel's trailing TMA descriptors by value";
  let description = [{
    Runs on the LLVM dialect form of GPU kernels (after
    `convert-gpu-to-nvvm`, which drops `llvm.byval` from `gpu.func`
    arguments). The last `N` parameters of an `llvm.func` marked
    `tile.tensor_map_params = N` become 128-byte, 64-byte-aligned `byval`
    parameters marked `nvvm.grid_constant`: in PTX, `.param .align 64 .b8
    p[128]` whose address TMA instructions use directly. So the runtime
    passes each descriptor in the launch's parameters (what CUDA's
    `const __grid_constant__ CUtensorMap` does), and a captured graph
    records them with the launch.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ChainKernels : Pass<"tile-chain-kernels", "::mlir::ModuleOp"> {
  let summary = "runs GPU kernels one after another in one grid, ordered by device counters";
  let description = [{
    Runs on the `gpu.func` form of kernels (after `convert-tile-to-gpu`
    with `grid-dependency-control`). `chain = "name=k1,k2,..."` builds one
    kernel `@name` that does what launching `k1`, `k2`, ... in stream
    order does, in one launch: a dependent launch has a fixed cost on an
    H200 whatever its kernel does
    ([results](../../bench/results/2026-11-23-decode-time-h200.md)), and a
    counter in L2 costs less.

    Its parameters are those of each part in order, then a `ticket`
    counter view (`memref<?xi32>`, at least 1 + parts counters, zeros at
    the first launch, zeros again after every launch), then each part's
    grid extents (x, y, z; `i64`). Its grid is 1-D, the sum of the parts'
    program counts; its block is theirs (the parts must agree).

    * **Dispatch in order.** After `griddepcontrol.wait` (the grid before
      has completed), thread 0 of each block takes a ticket from counter 0:
      tickets 0 .. n1 - 1 run part 1 (block ids delinearized from the
      ticket over its extents), the next n2 part 2, and so on. A block
      with a ticket is running, so every block of an earlier part is
      resident or done before any later block waits on it: the waits
      below cannot deadlock, whatever order the hardware schedules blocks.
    * **Waits.** Where a part `k > 1` had its `griddepcontrol.wait` (after
      its prefetches and its loads of `frozen` and `settled` views), thread
      0 polls counter `k - 1` (relaxed atomics, `nanosleep` between polls)
      until all of part `k - 1`'s blocks have counted themselves, then runs
      the PTX memory model's acquire pattern (`fence.acq_rel.gpu`), and a
      block barrier passes it on. At its end each block of part `k` runs
      the release pattern (barrier, `fence.acq_rel.gpu`, a relaxed add
      on counter `k`). The last block of the last part resets every counter
      (every block has its ticket and every earlier part has counted).
    * Everything a part reads after its wait was written before by earlier
      parts or grids, as with programmatic launches: its stream-order
      semantics hold, so each part's ownership proof and launch contract
      carry over. `in` views are not marked read-only (an earlier part of
      the chain may write them); `frozen` ones keep their mark.

    The parts are removed from the module (they are compiled on their
    own). Workgroup memory is the parts' allocations side by side; the
    register cap is the loosest `nvvm.minctasm` above 1 any part has (the
    fewest programs per SM), so no part gets fewer registers than alone.
  }];
  let options = [
    Option<"chain", "chain", "std::string", /*default=*/"\"\"",
           "name=part1,part2,...: the chained kernel and its parts in order">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect", "::mlir::scf::SCFDialect"
  ];
}

def ConvertMemRefCopyToLoops : Pass<"convert-memref-copy-to-loops"> {
  let summary = "rewrites memref.copy as loops of loads and stores";
  let description = [{
    Bufferization copies strided buffers with `memref.copy`, which the LLVM
    lowering turns into a call to `memrefCopy` from MLIR's C runner utilities
    unless both sides are contiguous. The host path must not depend on that
    library (the runtime loads host code on machines without LLVM), so this
    pass rewrites every `memref.copy` as an `scf.for` nest of `memref.load`
    and `memref.store` over the source's dims.

    ```mlir
    memref.copy %a, %b : memref<4x?xf32, strided<[?, 1]>> to memref<4x?xf32>
    // becomes
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %d1 step %c1 {
        %v = memref.load %a[%i, %j] : ...
        memref.store %v, %b[%i, %j] : ...
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // TILE_CONVERSION_PASSES_TD
