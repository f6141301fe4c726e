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
