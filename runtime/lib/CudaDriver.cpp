//===- CudaDriver.cpp - dlopen libcuda and resolve entry points -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>
#include <mutex>
#include <string>

using namespace tile_runtime;

// Two levels so that the cuda.h macro (cuMemAlloc -> cuMemAlloc_v2) is
// expanded before it is turned into the symbol name.
#define TILE_SYMBOL_NAME(name) TILE_SYMBOL_NAME_EXPANDED(name)
#define TILE_SYMBOL_NAME_EXPANDED(name) #name

Status CudaDriver::get(const CudaDriver *&driver) {
  static CudaDriver instance;
  static Status loaded = Status::error("not loaded");
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char *why = dlerror();
      loaded = Status::error(std::string("no CUDA driver: dlopen(libcuda.so.1) "
                                         "failed: ") +
                             (why ? why : "unknown"));
      return;
    }
#define TILE_RESOLVE(name)                                                     \
  instance.name = reinterpret_cast<decltype(instance.name)>(                   \
      dlsym(lib, TILE_SYMBOL_NAME(name)));                                     \
  if (!instance.name) {                                                        \
    loaded = Status::error("the CUDA driver lacks " +                          \
                           std::string(TILE_SYMBOL_NAME(name)) +               \
                           " (too old for this runtime)");                     \
    return;                                                                    \
  }
    TILE_CUDA_DRIVER_FUNCTIONS(TILE_RESOLVE)
#undef TILE_RESOLVE
    loaded = instance.check(instance.cuInit(0), "cuInit");
  });
  if (!loaded)
    return loaded;
  driver = &instance;
  return Status::ok();
}

Status CudaDriver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::ok();
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return Status::error(std::string(call) + ": " +
                       (name ? name : "CUDA error " + std::to_string(result)) +
                       (text ? std::string(" (") + text + ")" : ""));
}
