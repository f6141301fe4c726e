//===- Manifest.h - what tilec compiled: kernels.json -----------*- C++ -*-===//
//
// tilec writes a manifest beside its artifacts (docs/language.md): per
// kernel its parameters, launch contract, warps per program and unchecked
// regions; per artifact (a CUBIN, a host shared object) its file, target and
// SHA-256. The runtime loads nothing a manifest does not describe exactly.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_MANIFEST_H
#define TILE_RUNTIME_MANIFEST_H

#include "tile/runtime/LaunchContract.h"
#include "tile/runtime/Files.h"
#include "tile/runtime/Status.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace tile_runtime {

/// The manifest version this runtime reads.
inline constexpr int kManifestVersion = 1;

/// A TMA descriptor the CUDA runtime encodes at each launch from a 2-D view
/// argument and passes by value after the kernel's other parameters.
struct ManifestTensorMap {
  int argument = 0;           ///< index of the view in the kernel's params
  std::array<int, 2> box{};   ///< elements per load: {columns, rows}
};

struct ManifestKernel {
  std::string name;
  std::string source;   ///< file:line of the kernel
  std::string cacheKey; ///< 64 hex digits
  int numWarps = 4;
  /// The kernel begins with griddepcontrol.wait: it may be launched as a
  /// programmatic dependent of the previous kernel in its stream.
  bool gridDependencyWait = false;
  /// The kernel has grid barriers (tile.grid_sync): every program must be
  /// resident at once, so CUDA launches it cooperatively (the driver refuses
  /// a grid that does not fit) and never as a programmatic dependent.
  bool gridSync = false;
  int uncheckedRegions = 0;
  /// Dynamic shared memory per program (CUDA), bytes.
  int dynamicSharedBytes = 0;
  /// TMA descriptors of the CUDA artifact's trailing parameters, in order
  /// (the host artifact takes none).
  std::vector<ManifestTensorMap> tensorMaps;
  /// A chained kernel (tilec --chain): the kernels it runs in order in one
  /// grid, each under its own launch contract; its own contract is empty.
  std::vector<std::string> chain;
  LaunchContract contract;
};

struct ManifestArtifact {
  std::string kind;   ///< "cubin" or "host-so"
  std::string file;   ///< relative to the manifest's directory
  std::string target; ///< "sm_90a", ..., or "host"
  std::string sha256;
};

struct Manifest {
  std::string path; ///< where it was read from
  std::string source;
  std::vector<ManifestArtifact> artifacts;
  std::vector<ManifestKernel> kernels;

  /// Parses and validates `text` (the file at `path`, for messages): the
  /// version, every required field, and each kernel's launch contract.
  static Status parse(std::string_view text, const std::string &path,
                      Manifest &manifest);
  static Status load(const std::string &path, Manifest &manifest);

  /// The artifact of `kind`, or null.
  const ManifestArtifact *artifact(std::string_view kind) const;
  /// The artifact's path (the manifest's directory joined with its file).
  std::string artifactPath(const ManifestArtifact &artifact) const;
  /// Reads the artifact and checks its SHA-256 against the manifest.
  Status readArtifact(const ManifestArtifact &artifact,
                      std::string &bytes) const;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_MANIFEST_H
