//===- Parser.cpp - recursive-descent parser of .tile ---------------------===//
//
// Grammar: docs/language.md. One token of lookahead (two for `name =`);
// the first error is reported with the expected token and a caret, and
// the parse stops.
//
//===----------------------------------------------------------------------===//

#include "tile/Language/Parser.h"

#include "Lexer.h"

using namespace tile::lang;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

/// Binary operators by precedence, lowest first (Rust's order: bitwise
/// operators bind tighter than comparisons, shifts tighter than `&`).
const std::vector<std::vector<StringRef>> kBinaryLevels = {
    {"||"}, {"&&"}, {"==", "!=", "<", "<=", ">", ">="}, {"|"}, {"^"}, {"&"},
    {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};

/// The level of `+ -`: constant defaults parse from here (a `>` or `>>`
/// there closes the parameter list).
constexpr int kAdditiveLevel = 7;

/// Nesting bound, so hostile input cannot overflow the stack.
constexpr int kMaxDepth = 200;
/// The tallest expression tree: chains (`1 + 1 + ...`, `x as i32 as
/// i64 ...`, `a[i][j]...`) grow a tree one level per operator without
/// recursing in the parser, and the emitter and the tree's destructor
/// recurse through it.
constexpr int kMaxExprHeight = 512;

class Parser {
public:
  Parser(llvm::SourceMgr &sm, unsigned bufferId, Module &module)
      : sm(sm), bufferId(bufferId), module(module),
        lexer(sm.getMemoryBuffer(bufferId)->getBuffer()) {
    peeked = lexer.next();
    advance();
  }

  bool parseFile() {
    while (!failed && tok.kind != Token::Kind::Eof) {
      if (isKeyword("import")) {
        SMLoc loc = tok.loc;
        advance();
        if (tok.kind != Token::Kind::String)
          return error("expected a \"file.tile\" string after 'import'");
        module.imports.push_back({loc, tok.text.str()});
        advance();
        expect(";", "after the import");
      } else if (isKeyword("kernel") || isKeyword("fn")) {
        parseFunction();
      } else {
        return error("expected 'kernel', 'fn' or 'import' at the top level");
      }
    }
    return !failed;
  }

private:
  // -- Tokens ---------------------------------------------------------------
  void advance() {
    tok = peeked;
    peeked = lexer.next();
    if (tok.kind == Token::Kind::Error)
      error(tok.error);
  }
  bool is(StringRef punct) const {
    return tok.kind == Token::Kind::Punct && tok.text == punct;
  }
  bool isKeyword(StringRef kw) const {
    return tok.kind == Token::Kind::Ident && tok.text == kw;
  }
  bool consume(StringRef punct) {
    if (!is(punct))
      return false;
    advance();
    return true;
  }
  bool expect(StringRef punct, StringRef context) {
    if (consume(punct))
      return true;
    return error(("expected '" + punct + "' " + context).str());
  }
  std::string describe(const Token &t) const {
    switch (t.kind) {
    case Token::Kind::Eof:
      return "end of file";
    case Token::Kind::String:
      return "string \"" + t.text.str() + "\"";
    default:
      return "'" + t.text.str() + "'";
    }
  }
  bool error(const std::string &message) {
    return errorAt(tok.loc, message + (tok.kind == Token::Kind::Error
                                           ? ""
                                           : ", found " + describe(tok)));
  }
  bool errorAt(SMLoc loc, const std::string &message) {
    if (!failed)
      sm.PrintMessage(loc, llvm::SourceMgr::DK_Error, message);
    failed = true;
    // Stop consuming: every loop checks `failed` or reaches Eof.
    tok.kind = Token::Kind::Eof;
    peeked.kind = Token::Kind::Eof;
    return false;
  }
  std::string ident(StringRef context) {
    if (tok.kind != Token::Kind::Ident) {
      error(("expected an identifier " + context).str());
      return "";
    }
    std::string s = tok.text.str();
    advance();
    return s;
  }

  // -- Items ----------------------------------------------------------------
  void parseFunction() {
    auto fn = std::make_unique<Function>();
    fn->loc = tok.loc;
    fn->isKernel = isKeyword("kernel");
    fn->bufferId = bufferId;
    advance();
    fn->name = ident(fn->isKernel ? "after 'kernel'" : "after 'fn'");
    if (consume("<")) {
      do {
        GenericParam g;
        g.loc = tok.loc;
        if (isKeyword("const")) {
          advance();
          g.name = ident("after 'const'");
          expect(":", "after the const parameter name");
          g.scalarType = ident("(the const parameter's type)");
          // Arithmetic only: a '>' here closes the parameter list.
          if (consume("="))
            g.defaultValue = parseExpr(kAdditiveLevel);
        } else if (isKeyword("type")) {
          advance();
          g.isType = true;
          g.name = ident("after 'type'");
          if (consume("="))
            g.defaultType = ident("(a default element type)");
        } else {
          error("expected 'const' or 'type' in the parameter list");
        }
        fn->generics.push_back(std::move(g));
      } while (!failed && consume(","));
      expect(">", "to close the compile-time parameters");
    }
    expect("(", "before the parameters");
    if (!is(")")) {
      do {
        fn->params.push_back(parseParam(fn->isKernel));
      } while (!failed && consume(","));
    }
    expect(")", "after the parameters");
    if (!fn->isKernel && consume("->"))
      fn->result = parseType();
    fn->body = parseBlock(0);
    if (!failed)
      module.functions.push_back(std::move(fn));
  }

  Param parseParam(bool isKernel) {
    Param p;
    p.loc = tok.loc;
    p.name = ident("(a parameter name)");
    expect(":", "after the parameter name");
    if (is("&")) {
      if (!isKernel) {
        error("helper functions take tiles and scalars, not tensors");
        return p;
      }
      advance();
      p.kind = Param::Kind::View;
      // The mode names are the dialect's (`&mut` is `out`).
      p.mode = "in";
      if (isKeyword("mut")) {
        p.mode = "out";
        advance();
      } else {
        for (StringRef mode : {"inout", "add", "frozen", "settled", "ticket"})
          if (isKeyword(mode)) {
            p.mode = mode.str();
            advance();
            break;
          }
      }
      if (!isKeyword("Tensor")) {
        error("expected 'Tensor' after '&'");
        return p;
      }
      advance();
      expect("<", "after 'Tensor'");
      p.dtype = ident("(the element type)");
      expect(",", "after the element type");
      p.shape = parseShape(/*allowWild=*/true);
      if (consume(",")) {
        if (!isKeyword("strides")) {
          error("expected 'strides = [...]' or '>' after the shape");
          return p;
        }
        advance();
        expect("=", "after 'strides'");
        p.strides = parseShape(/*allowWild=*/true);
      }
      expect(">", "to close 'Tensor<...>'");
      if (isKeyword("by")) {
        if (p.mode == "ticket") {
          error("'by' partitions exclusively owned tensors (&mut, &inout); "
                "ticket tensors are only passed to join(...)");
          return p;
        }
        if (p.mode == "in" || p.mode == "frozen" || p.mode == "settled" ||
            p.mode == "add") {
          error("'by' partitions exclusively owned tensors (&mut, &inout); " +
                std::string(p.mode == "add" ? "add-only tensors"
                                            : "shared inputs") +
                " are partitioned with .tiles([...])");
          return p;
        }
        advance();
        p.by = parseShape(/*allowWild=*/false);
      }
      return p;
    }
    p.kind = Param::Kind::Scalar;
    p.type = parseType();
    p.dtype = p.type.scalar;
    if (isKernel && p.type.isTile)
      errorAt(p.type.loc, "kernel parameters are tensors (&Tensor) or "
                          "scalars, not tiles");
    return p;
  }

  std::vector<ExprPtr> parseShape(bool allowWild) {
    std::vector<ExprPtr> dims;
    if (!expect("[", "to open a shape"))
      return dims;
    if (!is("]")) {
      do {
        if (is("?")) {
          if (!allowWild) {
            error("a tile shape must be static");
            return dims;
          }
          dims.push_back(std::make_unique<Expr>(Expr::Kind::Wild, tok.loc));
          advance();
        } else {
          dims.push_back(parseExpr());
        }
      } while (!failed && consume(","));
    }
    expect("]", "to close the shape");
    return dims;
  }

  TypeExpr parseType() {
    TypeExpr t;
    t.loc = tok.loc;
    if (isKeyword("Tile")) {
      advance();
      t.isTile = true;
      expect("<", "after 'Tile'");
      t.scalar = ident("(the element type)");
      expect(",", "after the element type");
      t.shape = parseShape(/*allowWild=*/false);
      expect(">", "to close 'Tile<...>'");
      return t;
    }
    t.scalar = ident("(a type)");
    return t;
  }

  // -- Statements -----------------------------------------------------------
  Body parseBlock(int depth) {
    Body block;
    if (depth > kMaxDepth) {
      error("blocks nested too deeply");
      return block;
    }
    if (!expect("{", "to open a block"))
      return block;
    while (!failed && !is("}") && tok.kind != Token::Kind::Eof) {
      // A trailing expression (no ';') is the block's value.
      StmtPtr s = parseStmt(depth, &block.result);
      if (block.result) {
        if (!is("}"))
          error("expected ';' after the expression");
        break;
      }
      if (s)
        block.stmts.push_back(std::move(s));
    }
    expect("}", "to close the block");
    return block;
  }

  StmtPtr parseStmt(int depth, ExprPtr *trailing) {
    SMLoc loc = tok.loc;
    if (isKeyword("let")) {
      advance();
      auto s = std::make_unique<Stmt>(Stmt::Kind::Let, loc);
      if (isKeyword("mut")) {
        s->isMutable = true;
        advance();
      }
      if (consume("(")) {
        do
          s->names.push_back(ident("in the tuple pattern"));
        while (!failed && consume(","));
        expect(")", "to close the tuple pattern");
      } else {
        s->names.push_back(ident("after 'let'"));
      }
      if (consume(":"))
        s->type = parseType();
      expect("=", "in the let statement");
      s->value = parseExpr();
      expect(";", "after the let statement");
      return s;
    }
    if (isKeyword("for")) {
      advance();
      auto s = std::make_unique<Stmt>(Stmt::Kind::For, loc);
      s->names.push_back(ident("after 'for'"));
      if (!isKeyword("in")) {
        error("expected 'in' after the loop variable");
        return nullptr;
      }
      advance();
      s->lower = parseExpr();
      expect("..", "in the loop range (lo..hi)");
      s->upper = parseExpr();
      if (isKeyword("step")) {
        advance();
        s->step = parseExpr();
      }
      if (isKeyword("unroll")) {
        advance();
        s->unroll = true;
        if (isKeyword("if")) {
          advance();
          s->unrollIf = parseExpr();
        }
      }
      s->body = parseBlock(depth + 1);
      return s;
    }
    if (isKeyword("if"))
      return parseIf(depth);
    if (isKeyword("unchecked")) {
      advance();
      auto s = std::make_unique<Stmt>(Stmt::Kind::Unchecked, loc);
      if (tok.kind != Token::Kind::String) {
        error("expected a string after 'unchecked' saying why the code is "
              "safe");
        return nullptr;
      }
      s->reason = tok.text.str();
      advance();
      s->body = parseBlock(depth + 1);
      return s;
    }
    if (isKeyword("join") && peeked.kind == Token::Kind::Punct &&
        peeked.text == "(") {
      // join(tickets, dim) { ... }
      advance();
      advance();
      auto s = std::make_unique<Stmt>(Stmt::Kind::Join, loc);
      s->value = parseExpr();
      expect(",", "after the ticket tensor of join(tickets, dim)");
      s->lower = parseExpr();
      expect(")", "to close join(tickets, dim)");
      s->body = parseBlock(depth + 1);
      return s;
    }
    if (isKeyword("return")) {
      advance();
      auto s = std::make_unique<Stmt>(Stmt::Kind::Return, loc);
      if (!is(";"))
        s->value = parseExpr();
      expect(";", "after the return statement");
      return s;
    }
    if (tok.kind == Token::Kind::Ident && peeked.kind == Token::Kind::Punct &&
        peeked.text == "=") {
      auto s = std::make_unique<Stmt>(Stmt::Kind::Assign, loc);
      s->names.push_back(tok.text.str());
      advance();
      advance();
      s->value = parseExpr();
      expect(";", "after the assignment");
      return s;
    }
    auto s = std::make_unique<Stmt>(Stmt::Kind::Expr, loc);
    s->value = parseExpr();
    if (is("}") && trailing && !failed) {
      *trailing = std::move(s->value);
      return nullptr;
    }
    expect(";", "after the expression");
    return s;
  }

  StmtPtr parseIf(int depth) {
    auto s = std::make_unique<Stmt>(Stmt::Kind::If, tok.loc);
    advance();
    s->value = parseExpr();
    s->body = parseBlock(depth + 1);
    if (isKeyword("else")) {
      advance();
      s->hasElse = true;
      if (isKeyword("if")) {
        if (depth > kMaxDepth) {
          error("else-if chain too long");
          return s;
        }
        s->otherwise.stmts.push_back(parseIf(depth + 1));
      } else {
        s->otherwise = parseBlock(depth + 1);
      }
    }
    return s;
  }

  // -- Expressions ----------------------------------------------------------
  /// `e` with its height from its (already sealed) children; an error at it
  /// past kMaxExprHeight, before the tree can grow any taller.
  ExprPtr sealed(ExprPtr e) {
    if (!e)
      return e;
    int h = 0;
    for (const ExprPtr &o : e->operands)
      if (o)
        h = std::max(h, o->height);
    for (const auto &n : e->named)
      if (n.second)
        h = std::max(h, n.second->height);
    e->height = h + 1;
    if (e->height > kMaxExprHeight && !failed) {
      errorAt(e->loc, "expression too deep: more than " + std::to_string(kMaxExprHeight) +
            " operations nested or chained in one expression");
    }
    return e;
  }

  ExprPtr parseExpr(int level = 0, int depth = 0) {
    if (depth > kMaxDepth) {
      error("expression nested too deeply");
      return std::make_unique<Expr>(Expr::Kind::Int, tok.loc);
    }
    if (level == static_cast<int>(kBinaryLevels.size()))
      return parseUnary(depth);
    ExprPtr lhs = parseExpr(level + 1, depth + 1);
    while (!failed && tok.kind == Token::Kind::Punct &&
           llvm::is_contained(kBinaryLevels[level], tok.text)) {
      auto e = std::make_unique<Expr>(Expr::Kind::Binary, tok.loc);
      e->name = tok.text.str();
      advance();
      e->operands.push_back(std::move(lhs));
      e->operands.push_back(parseExpr(level + 1, depth + 1));
      lhs = sealed(std::move(e));
    }
    return lhs;
  }

  ExprPtr parseUnary(int depth) {
    if (is("-") || is("!")) {
      auto e = std::make_unique<Expr>(Expr::Kind::Unary, tok.loc);
      e->name = tok.text.str();
      advance();
      if (depth > kMaxDepth) {
        error("expression nested too deeply");
        return e;
      }
      e->operands.push_back(parseUnary(depth + 1));
      return sealed(std::move(e));
    }
    ExprPtr e = parsePostfix(depth);
    while (!failed && isKeyword("as")) {
      auto c = std::make_unique<Expr>(Expr::Kind::Cast, tok.loc);
      advance();
      c->operands.push_back(std::move(e));
      c->type = parseType();
      e = sealed(std::move(c));
    }
    return e;
  }

  void parseArgs(Expr &call, StringRef close, int depth) {
    if (is(close))
      return;
    do {
      if (tok.kind == Token::Kind::Ident && peeked.kind == Token::Kind::Punct &&
          peeked.text == "=") {
        std::string name = tok.text.str();
        advance();
        advance();
        call.named.push_back({name, parseExpr(0, depth + 1)});
      } else if (tok.kind == Token::Kind::String) {
        auto s = std::make_unique<Expr>(Expr::Kind::Name, tok.loc);
        s->text = tok.text.str();
        s->name = "\"";
        advance();
        call.operands.push_back(std::move(s));
      } else {
        if (!call.named.empty()) {
          error("positional arguments go before named ones");
          return;
        }
        call.operands.push_back(parseExpr(0, depth + 1));
      }
    } while (!failed && consume(","));
  }

  ExprPtr parsePostfix(int depth) {
    ExprPtr e = sealed(parsePrimary(depth));
    while (!failed) {
      if (is("[")) {
        auto idx = std::make_unique<Expr>(Expr::Kind::Index, tok.loc);
        advance();
        idx->operands.push_back(std::move(e));
        parseArgs(*idx, "]", depth);
        expect("]", "to close the index");
        e = sealed(std::move(idx));
      } else if (is(".")) {
        advance();
        auto m = std::make_unique<Expr>(Expr::Kind::Method, tok.loc);
        m->name = ident("after '.'");
        m->operands.push_back(std::move(e));
        expect("(", "after the method name");
        parseArgs(*m, ")", depth);
        expect(")", "to close the arguments");
        e = sealed(std::move(m));
      } else {
        break;
      }
    }
    return e;
  }

  ExprPtr parsePrimary(int depth) {
    SMLoc loc = tok.loc;
    switch (tok.kind) {
    case Token::Kind::Int: {
      auto e = std::make_unique<Expr>(Expr::Kind::Int, loc);
      e->intValue = tok.intValue;
      advance();
      return e;
    }
    case Token::Kind::Float: {
      auto e = std::make_unique<Expr>(Expr::Kind::Float, loc);
      e->floatValue = tok.floatValue;
      advance();
      return e;
    }
    case Token::Kind::Ident: {
      if (tok.text == "true" || tok.text == "false") {
        auto e = std::make_unique<Expr>(Expr::Kind::Bool, loc);
        e->intValue = tok.text == "true";
        advance();
        return e;
      }
      std::string name = tok.text.str();
      advance();
      if (is("(")) {
        auto call = std::make_unique<Expr>(Expr::Kind::Call, loc);
        call->name = name;
        advance();
        parseArgs(*call, ")", depth);
        expect(")", "to close the arguments");
        return call;
      }
      auto e = std::make_unique<Expr>(Expr::Kind::Name, loc);
      e->name = name;
      return e;
    }
    default:
      break;
    }
    if (consume("(")) {
      ExprPtr e = parseExpr(0, depth + 1);
      expect(")", "to close the parenthesis");
      return e;
    }
    if (is("[")) {
      auto list = std::make_unique<Expr>(Expr::Kind::List, loc);
      advance();
      parseArgs(*list, "]", depth);
      expect("]", "to close the list");
      return list;
    }
    error("expected an expression");
    return std::make_unique<Expr>(Expr::Kind::Int, loc);
  }

  llvm::SourceMgr &sm;
  unsigned bufferId;
  Module &module;
  Lexer lexer;
  Token tok, peeked;
  bool failed = false;
};

} // namespace

bool tile::lang::parseBuffer(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                             Module &module) {
  Parser parser(sourceMgr, bufferId, module);
  return parser.parseFile();
}
