# shellcheck shell=bash
# Shared set-up of scripts/test.sh and scripts/demo.sh: installs what is
# missing from the OS packages, then configures and builds into build/.
# Sourced, not run. Idempotent: a second run installs nothing and rebuilds
# only what changed.

set -euo pipefail

TILE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TILE_BUILD="${TILE_BUILD:-$TILE_ROOT/build}"
LLVM_PREFIX=/usr/lib/llvm-22

# Build tools, LLVM/MLIR 22, lld, GoogleTest, PCRE2 (the Qwen3 tokenizer),
# cpp-httplib (qwen3-serve), curl (its tests) and clang's runtime libraries
# (libFuzzer for the parser fuzz tests), all from Debian bookworm.
TILE_PACKAGES=(
  cmake ninja-build clang libclang-rt-dev lld ccache python3
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libgtest-dev nlohmann-json3-dev libpcre2-dev pkg-config
  libcpp-httplib-dev curl
)

tile_log() { printf '\033[1m[tile]\033[0m %s\n' "$*"; }

tile_install_packages() {
  local missing=() pkg
  for pkg in "${TILE_PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
        grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || {
      echo "error: need root or sudo to install: ${missing[*]}" >&2
      exit 1
    }
    sudo=(sudo)
  fi
  tile_log "installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

tile_configure() {
  if [[ -f "$TILE_BUILD/build.ninja" ]]; then
    return 0
  fi
  tile_log "configuring $TILE_BUILD"
  local launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
              -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  cmake -G Ninja -S "$TILE_ROOT" -B "$TILE_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$LLVM_PREFIX/lib/cmake/mlir" \
    -DLLVM_DIR="$LLVM_PREFIX/lib/cmake/llvm" \
    -DLLVM_EXTERNAL_LIT="$LLVM_PREFIX/bin/lit" \
    "${launcher[@]}"
}

tile_build() {
  tile_log "building"
  # ccache hashes paths relative to the checkout, so clones elsewhere (CI)
  # hit the same cache.
  export CCACHE_BASEDIR="$TILE_ROOT"
  cmake --build "$TILE_BUILD"
}

# The official openai client package for qwen3-serve's client test, from
# the npm registry into build/npm (pinned). Without node, npm or the
# registry, that one test reports itself skipped.
TILE_NPM_PACKAGES=(openai@4.104.0)
tile_install_node_packages() {
  local dir="$TILE_BUILD/npm"
  if [[ -f "$dir/node_modules/openai/package.json" ]]; then
    return 0
  fi
  if ! command -v npm >/dev/null; then
    tile_log "no npm: the openai client test will be skipped"
    return 0
  fi
  tile_log "installing into $dir: ${TILE_NPM_PACKAGES[*]}"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
    "${TILE_NPM_PACKAGES[@]}" >/dev/null ||
    tile_log "npm install failed: the openai client test will be skipped"
}

tile_setup() {
  tile_install_packages
  tile_configure
  tile_install_node_packages
  tile_build
}
