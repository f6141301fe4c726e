//===- Sha256.h - SHA-256 of a byte string ----------------------*- C++ -*-===//
//
// The runtime checks that a manifest describes exactly the artifact beside
// it (kernels.json's artifact_sha256); no crypto library is needed for it.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_SHA256_H
#define TILE_RUNTIME_SHA256_H

#include <string>
#include <string_view>

namespace tile_runtime {

/// The SHA-256 digest of `bytes`, as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);

} // namespace tile_runtime

#endif // TILE_RUNTIME_SHA256_H
