//===- qwen3-kernel-table.cpp - the kernel table as tilec arguments -------===//
//
// Writes the Qwen3 kernel set of one dtype (qwen3/KernelTable.h) as a tilec
// response file: one --specialize per instance that is not a kernel at its
// defaults. The build compiles the set from it, so the set is the table the
// engine looks its kernels up in.
//
//   qwen3-kernel-table --dtype bf16|f16 [--names] [-o FILE]
//
// --names lists the instances' names instead (one per line).
//
//===----------------------------------------------------------------------===//

#include "qwen3/KernelTable.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace {
int usage() {
  std::cerr << "usage: qwen3-kernel-table --dtype bf16|f16 [--names] [-o FILE]\n";
  return 2;
}
} // namespace

int main(int argc, char **argv) {
  std::string dtype, out;
  bool names = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dtype" && i + 1 < argc)
      dtype = argv[++i];
    else if (a == "-o" && i + 1 < argc)
      out = argv[++i];
    else if (a == "--names")
      names = true;
    else
      return usage();
  }
  if (dtype != "bf16" && dtype != "f16")
    return usage();
  const qwen3::KernelSet set =
      qwen3::kernelSet(dtype == "f16" ? qwen3::KernelDType::F16 : qwen3::KernelDType::BF16);
  std::ostringstream os;
  for (const qwen3::KernelInstance &k : set.instances) {
    if (names)
      os << k.name() << "\n";
    else if (!k.params.empty())
      os << "--specialize=" << k.spec() << "\n";
  }
  if (out.empty()) {
    std::cout << os.str();
    return std::cout.flush() ? 0 : 1;
  }
  // Written whole, then renamed: a failed write leaves no partial table.
  const std::string tmp = out + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << os.str();
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      std::cerr << "qwen3-kernel-table: error: " << out << ": cannot write\n";
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::remove(tmp.c_str());
    std::cerr << "qwen3-kernel-table: error: " << out << ": " << std::strerror(errno) << "\n";
    return 1;
  }
  return 0;
}
