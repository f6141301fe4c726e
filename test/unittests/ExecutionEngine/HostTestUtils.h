//===- HostTestUtils.h - helpers for host kernel tests --------------------===//

#ifndef TEST_UNITTESTS_EXECUTIONENGINE_HOSTTESTUTILS_H
#define TEST_UNITTESTS_EXECUTIONENGINE_HOSTTESTUTILS_H

#include "../Common/TestNumerics.h"

#include "tile/ExecutionEngine/HostRunner.h"

namespace tile::testing {

/// Compiles `source` or fails the test with the diagnostics.
inline HostRunner compileOrDie(llvm::StringRef source) {
  auto runner = HostRunner::compileSource(source);
  if (!runner) {
    std::string message = llvm::toString(runner.takeError());
    ADD_FAILURE() << message;
    std::abort();
  }
  return std::move(*runner);
}

inline void runOrFail(HostRunner &runner, llvm::StringRef kernel,
                      std::vector<HostArg> args, std::array<int64_t, 3> grid) {
  if (llvm::Error e = runner.run(kernel, std::move(args), grid))
    ADD_FAILURE() << llvm::toString(std::move(e));
}

} // namespace tile::testing

#endif // TEST_UNITTESTS_EXECUTIONENGINE_HOSTTESTUTILS_H
