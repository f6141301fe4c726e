//===- Parser.h - lexer and recursive-descent parser of .tile ---*- C++ -*-===//
//
// Hand-written, no MLIR: parses one buffer of a llvm::SourceMgr into a
// Module. Errors are reported through the SourceMgr (file:line:col, the
// source line and a caret) and stop the parse.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LANGUAGE_PARSER_H
#define TILE_LANGUAGE_PARSER_H

#include "tile/Language/AST.h"

#include "llvm/Support/SourceMgr.h"

namespace tile::lang {

/// Parses buffer `bufferId` of `sourceMgr`, appending its functions and
/// imports to `module`. Returns false after reporting the first error.
bool parseBuffer(llvm::SourceMgr &sourceMgr, unsigned bufferId, Module &module);

} // namespace tile::lang

#endif // TILE_LANGUAGE_PARSER_H
