//===- Manifest.cpp - parse and validate kernels.json ---------------------===//

#include "tile/runtime/Manifest.h"
#include "tile/runtime/Files.h"
#include "tile/runtime/Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace tile_runtime;
using json = nlohmann::json;

namespace {
/// Field access with messages that name the manifest and the field.
struct Reader {
  const std::string &path;
  Status fail(const std::string &what) const {
    return Status::error(path + ": " + what);
  }
  Status string(const json &o, const char *key, std::string &out,
                const std::string &where) const {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string())
      return fail(where + ": '" + key + "' must be a string");
    out = it->get<std::string>();
    return Status::ok();
  }
  Status integer(const json &o, const char *key, int64_t lo, int64_t hi,
                 int &out, const std::string &where) const {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number_integer())
      return fail(where + ": '" + key + "' must be an integer");
    int64_t v = it->get<int64_t>();
    if (v < lo || v > hi)
      return fail(where + ": '" + key + "' = " + std::to_string(v) +
                  " is outside [" + std::to_string(lo) + ", " +
                  std::to_string(hi) + "]");
    out = static_cast<int>(v);
    return Status::ok();
  }
};

bool isHex64(const std::string &s) {
  if (s.size() != 64)
    return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  return true;
}
} // namespace

Status Manifest::parse(std::string_view text, const std::string &path,
                       Manifest &m) {
  Reader r{path};
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return r.fail("not a JSON object");
  int version = 0;
  if (Status s = r.integer(doc, "tile_manifest_version", 0, 1 << 30, version,
                           "the manifest");
      !s)
    return s;
  if (version != kManifestVersion)
    return r.fail("manifest version " + std::to_string(version) +
                  " is not supported (this runtime reads version " +
                  std::to_string(kManifestVersion) + ")");
  m = Manifest();
  m.path = path;
  if (auto it = doc.find("source"); it != doc.end() && it->is_string())
    m.source = it->get<std::string>();

  auto artifacts = doc.find("artifacts");
  if (artifacts == doc.end() || !artifacts->is_array() || artifacts->empty())
    return r.fail("'artifacts' must be a non-empty list");
  for (const json &a : *artifacts) {
    std::string where = "artifact #" + std::to_string(m.artifacts.size());
    if (!a.is_object())
      return r.fail(where + " is not an object");
    ManifestArtifact art;
    if (Status s = r.string(a, "kind", art.kind, where); !s)
      return s;
    if (Status s = r.string(a, "file", art.file, where); !s)
      return s;
    if (Status s = r.string(a, "target", art.target, where); !s)
      return s;
    if (Status s = r.string(a, "sha256", art.sha256, where); !s)
      return s;
    if (art.kind != "cubin" && art.kind != "host-so")
      return r.fail(where + ": unknown kind '" + art.kind + "'");
    if (art.file.empty() || art.file.find('/') != std::string::npos)
      return r.fail(where + ": 'file' must name a file beside the manifest");
    if (!isHex64(art.sha256))
      return r.fail(where + ": 'sha256' must be 64 hex digits");
    m.artifacts.push_back(std::move(art));
  }

  auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array())
    return r.fail("'kernels' must be a list");
  for (const json &k : *kernels) {
    std::string where = "kernel #" + std::to_string(m.kernels.size());
    if (!k.is_object())
      return r.fail(where + " is not an object");
    ManifestKernel mk;
    if (Status s = r.string(k, "name", mk.name, where); !s)
      return s;
    where = "kernel " + mk.name;
    for (const ManifestKernel &other : m.kernels)
      if (other.name == mk.name)
        return r.fail(where + " is listed twice");
    if (Status s = r.string(k, "cache_key", mk.cacheKey, where); !s)
      return s;
    if (!isHex64(mk.cacheKey))
      return r.fail(where + ": 'cache_key' must be 64 hex digits");
    if (auto it = k.find("source"); it != k.end() && it->is_string())
      mk.source = it->get<std::string>();
    if (Status s = r.integer(k, "num_warps", 1, 32, mk.numWarps, where); !s)
      return s;
    if (auto it = k.find("grid_dependency_wait"); it != k.end()) {
      if (!it->is_boolean())
        return r.fail(where + ": 'grid_dependency_wait' must be true or false");
      mk.gridDependencyWait = it->get<bool>();
    }
    if (auto it = k.find("grid_sync"); it != k.end()) {
      if (!it->is_boolean())
        return r.fail(where + ": 'grid_sync' must be true or false");
      mk.gridSync = it->get<bool>();
    }
    if (k.contains("dynamic_shared_bytes"))
      if (Status s = r.integer(k, "dynamic_shared_bytes", 0, 256 * 1024,
                               mk.dynamicSharedBytes, where);
          !s)
        return s;
    if (Status s = r.integer(k, "unchecked_regions", 0, 1 << 30,
                             mk.uncheckedRegions, where);
        !s)
      return s;
    if (auto chain = k.find("chain"); chain != k.end()) {
      // A chain: its parts are kernels listed before it, none a chain.
      if (!chain->is_array() || chain->size() < 2)
        return r.fail(where + ": 'chain' must list two kernels or more");
      for (const json &part : *chain) {
        if (!part.is_string())
          return r.fail(where + ": 'chain' must list kernel names");
        std::string name = part.get<std::string>();
        auto it = std::find_if(
            m.kernels.begin(), m.kernels.end(),
            [&](const ManifestKernel &o) { return o.name == name; });
        if (it == m.kernels.end() || !it->chain.empty())
          return r.fail(where + ": chain part '" + name +
                        "' is not a kernel listed before it");
        if (it->numWarps != mk.numWarps || !it->tensorMaps.empty() ||
            it->dynamicSharedBytes != 0 || !it->gridDependencyWait)
          return r.fail(where + ": chain part '" + name +
                        "' cannot run in a chain (warps, TMA or grid wait)");
        mk.chain.push_back(std::move(name));
      }
      if (!mk.gridDependencyWait || k.contains("launch_contract"))
        return r.fail(where + ": a chain waits for the grid before and has no "
                              "launch contract of its own");
      mk.contract.kernel = mk.name;
      m.kernels.push_back(std::move(mk));
      continue;
    }
    auto contract = k.find("launch_contract");
    if (contract == k.end() || !contract->is_object())
      return r.fail(where + ": 'launch_contract' must be an object");
    if (Status s = LaunchContract::fromJson(contract->dump(), mk.contract); !s)
      return r.fail(where + ": launch contract: " + s.message());
    if (mk.contract.kernel != mk.name)
      return r.fail(where + ": the launch contract is for kernel '" +
                    mk.contract.kernel + "'");
    if (auto it = k.find("tensor_maps"); it != k.end()) {
      if (!it->is_array())
        return r.fail(where + ": 'tensor_maps' must be an array");
      for (size_t t = 0; t < it->size(); ++t) {
        const json &tm = (*it)[t];
        std::string at = where + ": tensor_maps[" + std::to_string(t) + "]";
        if (!tm.is_object())
          return r.fail(at + " must be an object");
        ManifestTensorMap map;
        if (Status s = r.integer(tm, "argument", 0,
                                 static_cast<int64_t>(mk.contract.params.size()) - 1,
                                 map.argument, at);
            !s)
          return s;
        const ContractParam &p = mk.contract.params[map.argument];
        if (p.kind != ContractParam::Kind::View || p.shape.size() != 2 ||
            !isShared(p.mode))
          return r.fail(at + ": parameter '" + p.name +
                        "' is not a 2-D read-only view");
        auto box = tm.find("box");
        if (box == tm.end() || !box->is_array() || box->size() != 2)
          return r.fail(at + ": 'box' must be [columns, rows]");
        for (int d = 0; d < 2; ++d) {
          const json &v = (*box)[d];
          if (!v.is_number_integer() || v.get<int64_t>() < 1 ||
              v.get<int64_t>() > 256)
            return r.fail(at + ": 'box' extents must be integers in [1, 256]");
          map.box[d] = v.get<int>();
        }
        if (map.box[0] * sizeInBytes(p.dtype) % 16 != 0)
          return r.fail(at + ": a box row of " + std::to_string(map.box[0]) +
                        " elements is not a multiple of 16 bytes");
        mk.tensorMaps.push_back(map);
      }
    }
    m.kernels.push_back(std::move(mk));
  }
  return Status::ok();
}

Status Manifest::load(const std::string &path, Manifest &manifest) {
  std::string text;
  if (Status s = readFile(path, text); !s)
    return s;
  return parse(text, path, manifest);
}

const ManifestArtifact *Manifest::artifact(std::string_view kind) const {
  for (const ManifestArtifact &a : artifacts)
    if (a.kind == kind)
      return &a;
  return nullptr;
}

std::string Manifest::artifactPath(const ManifestArtifact &a) const {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? a.file
                                    : path.substr(0, slash + 1) + a.file;
}

Status Manifest::readArtifact(const ManifestArtifact &a,
                              std::string &bytes) const {
  std::string file = artifactPath(a);
  if (Status s = readFile(file, bytes); !s)
    return s;
  std::string digest = sha256Hex(bytes);
  if (digest != a.sha256)
    return Status::error(file + ": SHA-256 " + digest +
                         " does not match the manifest " + path + " (" +
                         a.sha256 + "): the artifact and its manifest come "
                         "from different compiles");
  return Status::ok();
}
