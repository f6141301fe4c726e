# -*- Python -*-
# lit configuration of the tile regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")

# Unit tests are GoogleTest binaries run by ctest; inputs are not tests.
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "unittests", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# A longer referee run on demand (test/Referee).
if "TILE_REFEREE_KERNELS" in os.environ:
    config.environment["TILE_REFEREE_KERNELS"] = os.environ["TILE_REFEREE_KERNELS"]
config.substitutions.append(("%tile_src_root", config.tile_src_root))
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)

tools = [ToolSubst("tile-opt", unresolved="fatal"),
         ToolSubst("tile-translate", unresolved="fatal"),
         ToolSubst("tilec", unresolved="fatal"),
         ToolSubst("tile-referee", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, [config.tile_tools_dir])

# PTX/CUBIN tests declare `REQUIRES: ptxas`.
ptxas = shutil.which("ptxas", path=config.cuda_bin_dir) or shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
