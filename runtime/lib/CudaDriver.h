//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen and the entry points the runtime uses
// are resolved by their ABI names (cuda.h maps e.g. cuMemAlloc to
// cuMemAlloc_v2), so the project builds and its CPU tests run on machines
// without a driver. Every call's result goes through check(), which turns a
// failure into a Status naming the call and the driver's error.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_LIB_CUDADRIVER_H
#define TILE_RUNTIME_LIB_CUDADRIVER_H

#include "tile/runtime/Status.h"

#include <cuda.h>

namespace tile_runtime {

// X(name): every driver entry point used; the pointer is `name` (the
// cuda.h spelling), resolved under its ABI symbol.
#define TILE_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuDeviceGetDefaultMemPool)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuMemPoolSetAttribute)                                                     \
  X(cuMemPoolGetAttribute)                                                     \
  X(cuMemAllocAsync)                                                           \
  X(cuMemGetInfo)                                                              \
  X(cuMemFreeAsync)                                                            \
  X(cuMemAllocHost)                                                            \
  X(cuMemFreeHost)                                                             \
  X(cuMemcpyHtoDAsync)                                                         \
  X(cuMemcpyDtoHAsync)                                                         \
  X(cuMemcpyDtoDAsync)                                                         \
  X(cuMemsetD8Async)                                                           \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventQuery)                                                              \
  X(cuEventElapsedTime)                                                        \
  X(cuModuleLoadData)                                                          \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuLaunchKernelEx)                                                          \
  X(cuGraphInstantiate)                                                        \
  X(cuGraphLaunch)                                                             \
  X(cuGraphDestroy)                                                            \
  X(cuGraphExecDestroy)                                                         \
  X(cuDeviceCanAccessPeer)                                                     \
  X(cuMemGetAllocationGranularity)                                             \
  X(cuMemAddressReserve)                                                       \
  X(cuMemAddressFree)                                                          \
  X(cuMemCreate)                                                               \
  X(cuMemRelease)                                                              \
  X(cuMemMap)                                                                  \
  X(cuMemUnmap)                                                                \
  X(cuMemSetAccess)                                                            \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD32)                                                               \
  X(cuStreamBatchMemOp)

struct CudaDriver {
#define TILE_DECLARE(name) decltype(&::name) name = nullptr;
  TILE_CUDA_DRIVER_FUNCTIONS(TILE_DECLARE)
#undef TILE_DECLARE

  /// The process-wide driver, loaded and initialized (cuInit) on first use;
  /// the error says why there is none.
  static Status get(const CudaDriver *&driver);

  /// Ok, or an error "<call>: CUDA_ERROR_X (description)".
  Status check(CUresult result, const char *call) const;
};

} // namespace tile_runtime

#endif // TILE_RUNTIME_LIB_CUDADRIVER_H
