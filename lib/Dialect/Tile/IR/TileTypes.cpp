//===- TileTypes.cpp - tile dialect types ----------------------------------===//
//
// Parsing, printing and verification of !tile.view, !tile.partition and
// !tile.owned.
//
//===----------------------------------------------------------------------===//

#include "TileOpsCommon.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tile;
using tile::detail::formatList;

#define GET_TYPEDEF_CLASSES
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

int64_t tile::getNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool ViewType::isValidElementType(Type type) {
  if (auto i = dyn_cast<IntegerType>(type))
    return i.isSignless() && llvm::is_contained({1u, 8u, 16u, 32u, 64u},
                                                i.getWidth());
  return isa<Float8E4M3FNType, Float16Type, BFloat16Type, Float32Type,
             Float64Type>(type);
}

SmallVector<int64_t> ViewType::getContiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  int64_t running = 1;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    strides[i] = running;
    if (ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(running))
      running = ShapedType::kDynamic;
    else
      running *= shape[i];
  }
  return strides;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t v) {
        if (ShapedType::isDynamic(v))
          os << "?";
        else
          os << v;
      },
      "x");
  return s;
}

LogicalResult tile::verifyTileType(
    function_ref<InFlightDiagnostic()> emitError, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError() << "expected a tile (a statically shaped tensor), got "
                       << type;
  if (!tensor.hasStaticShape() || tensor.getRank() < 1)
    return emitError() << "tile " << type
                       << " must have a static shape of rank >= 1";
  Type elt = tensor.getElementType();
  if (!ViewType::isValidElementType(elt) && !isa<IndexType>(elt))
    return emitError() << "tile " << type << " has unsupported element type "
                       << elt;
  int64_t n = tensor.getNumElements();
  if (n > TileDialect::kMaxTileElements)
    return emitError() << "tile " << type << " has " << n
                       << " elements; the limit is "
                       << TileDialect::kMaxTileElements;
  return success();
}

static LogicalResult
verifyStaticTileShape(function_ref<InFlightDiagnostic()> emitError,
                      StringRef what, ArrayRef<int64_t> shape) {
  if (shape.empty())
    return emitError() << what << " must have rank >= 1";
  for (auto [i, d] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(d) || d <= 0)
      return emitError() << what << " dim #" << i
                         << " must be a positive constant, got "
                         << formatList({d});
  // Avoid overflow in the product for absurd shapes.
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > TileDialect::kMaxTileElements / d) {
      n = -1;
      break;
    }
    n *= d;
  }
  if (n < 0 || n > TileDialect::kMaxTileElements)
    return emitError() << what << " " << formatShape(shape)
                       << " has more than the limit of "
                       << TileDialect::kMaxTileElements << " elements";
  return success();
}

//===----------------------------------------------------------------------===//
// View body: `mode, DIMSxTYPE [, strides = [...]]`, shared with partitions.
//===----------------------------------------------------------------------===//

namespace {
struct ViewBody {
  OwnershipMode mode = OwnershipMode::In;
  SmallVector<int64_t> shape;
  Type elementType;
  SmallVector<int64_t> strides;
  bool hasStrides = false;
  SmallVector<int64_t> tile;
  bool hasTile = false;
};
} // namespace

static ParseResult parseIntList(AsmParser &parser, SmallVectorImpl<int64_t> &out,
                                bool allowDynamic) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        if (allowDynamic && succeeded(parser.parseOptionalQuestion())) {
          out.push_back(ShapedType::kDynamic);
          return success();
        }
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        out.push_back(v);
        return success();
      });
}

/// "'in', 'out', ... or 'frozen'": every mode, from the enum.
static std::string ownershipModeList() {
  std::string list;
  const unsigned last = getMaxEnumValForOwnershipMode();
  for (unsigned i = 0; i <= last; ++i) {
    if (i)
      list += i == last ? " or " : ", ";
    list += "'" + stringifyOwnershipMode(static_cast<OwnershipMode>(i)).str() + "'";
  }
  return list;
}

static ParseResult parseMode(AsmParser &parser, OwnershipMode &mode) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return parser.emitError(loc, "expected ownership mode ")
           << ownershipModeList();
  std::optional<OwnershipMode> m = symbolizeOwnershipMode(keyword);
  if (!m)
    return parser.emitError(loc, "expected ownership mode ")
           << ownershipModeList() << ", got '" << keyword << "'";
  mode = *m;
  return success();
}

/// Parses `<mode, DIMSxTYPE [, strides = [...]] [, tile = [...]]>`.
static ParseResult parseViewBody(AsmParser &parser, ViewBody &body,
                                 bool allowTile) {
  if (parser.parseLess() || parseMode(parser, body.mode) ||
      parser.parseComma() ||
      parser.parseDimensionList(body.shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(body.elementType))
    return failure();
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "strides" && !body.hasStrides && !body.hasTile) {
      body.hasStrides = true;
      if (parseIntList(parser, body.strides, /*allowDynamic=*/true))
        return failure();
    } else if (key == "tile" && allowTile && !body.hasTile) {
      body.hasTile = true;
      if (parseIntList(parser, body.tile, /*allowDynamic=*/false))
        return failure();
    } else {
      return parser.emitError(loc, "unexpected '")
             << key << "'; expected "
             << (allowTile ? "'strides = [...]' or 'tile = [...]'"
                           : "'strides = [...]'");
    }
  }
  if (parser.parseGreater())
    return failure();
  if (!body.hasStrides)
    body.strides = ViewType::getContiguousStrides(body.shape);
  return success();
}

static void printViewBody(AsmPrinter &printer, ViewType view) {
  printer << stringifyOwnershipMode(view.getMode()) << ", "
          << formatShape(view.getShape()) << "x" << view.getElementType();
  if (view.getStrides() !=
      ArrayRef<int64_t>(ViewType::getContiguousStrides(view.getShape())))
    printer << ", strides = " << formatList(view.getStrides());
}

//===----------------------------------------------------------------------===//
// ViewType
//===----------------------------------------------------------------------===//

Type ViewType::parse(AsmParser &parser) {
  ViewBody body;
  if (parseViewBody(parser, body, /*allowTile=*/false))
    return {};
  return parser.getChecked<ViewType>(parser.getContext(), body.mode,
                                     body.shape, body.elementType,
                                     body.strides);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << "<";
  printViewBody(printer, *this);
  printer << ">";
}

/// True when the layout maps distinct indices to distinct elements for every
/// value of the dynamic dims (a sufficient condition: nested strides). Dims
/// of extent 1 are ignored; an empty view holds no elements.
static bool isNonOverlappingLayout(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides) {
  if (llvm::any_of(strides, ShapedType::isDynamic))
    return false;
  SmallVector<unsigned> dims;
  for (unsigned i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0)
      return true;
    if (shape[i] != 1)
      dims.push_back(i);
  }
  llvm::sort(dims, [&](unsigned a, unsigned b) {
    return strides[a] < strides[b];
  });
  for (unsigned k = 1; k < dims.size(); ++k) {
    unsigned prev = dims[k - 1];
    // Only the dim with the largest stride may have an unknown extent.
    if (ShapedType::isDynamic(shape[prev]))
      return false;
    // Overflow-safe form of: stride * extent <= next stride.
    if (strides[prev] > strides[dims[k]] / shape[prev])
      return false;
  }
  return true;
}

bool ViewType::isProvablyNonOverlapping() const {
  return isNonOverlappingLayout(getShape(), getStrides());
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               OwnershipMode mode, ArrayRef<int64_t> shape,
                               Type elementType, ArrayRef<int64_t> strides) {
  if (!isValidElementType(elementType))
    return emitError() << "view element type must be one of i1, i8, i16, "
                          "i32, i64, f8E4M3FN, f16, bf16, f32, f64; got "
                       << elementType;
  if (shape.empty())
    return emitError() << "a view must have rank >= 1";
  for (auto [i, d] : llvm::enumerate(shape))
    if (!ShapedType::isDynamic(d) && d < 0)
      return emitError() << "view dim #" << i
                         << " must be non-negative or '?', got " << d;
  if (mode == OwnershipMode::Ticket &&
      (shape.size() != 1 || !elementType.isSignlessInteger(32)))
    return emitError() << "a 'ticket' view holds one i32 counter per group: "
                          "rank 1, i32";
  if (strides.size() != shape.size())
    return emitError() << "view of rank " << shape.size() << " has "
                       << strides.size() << " strides";
  for (auto [i, s] : llvm::enumerate(strides))
    if (!ShapedType::isDynamic(s) && s <= 0)
      return emitError() << "view stride #" << i
                         << " must be positive or '?', got " << s;
  bool allStatic = !llvm::any_of(shape, ShapedType::isDynamic) &&
                   !llvm::any_of(strides, ShapedType::isDynamic);
  if (!isSharedMode(mode) && allStatic &&
      !isNonOverlappingLayout(shape, strides))
    return emitError() << "an '" << stringifyOwnershipMode(mode)
                       << "' view must not overlap itself, but strides "
                       << formatList(strides) << " over dims "
                       << formatList(shape)
                       << " map distinct indices to one element";
  return success();
}

//===----------------------------------------------------------------------===//
// PartitionType
//===----------------------------------------------------------------------===//

Type PartitionType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  ViewBody body;
  if (parseViewBody(parser, body, /*allowTile=*/true))
    return {};
  if (!body.hasTile) {
    parser.emitError(loc, "a partition needs its tile shape: 'tile = [...]'");
    return {};
  }
  auto emitError = [&] { return parser.emitError(loc); };
  ViewType view =
      ViewType::getChecked(emitError, parser.getContext(), body.mode,
                           body.shape, body.elementType, body.strides);
  if (!view)
    return {};
  return parser.getChecked<PartitionType>(parser.getContext(), view,
                                          body.tile);
}

void PartitionType::print(AsmPrinter &printer) const {
  printer << "<";
  printViewBody(printer, getView());
  printer << ", tile = " << formatList(getTileShape()) << ">";
}

LogicalResult
PartitionType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ViewType view, ArrayRef<int64_t> tileShape) {
  if (!view)
    return emitError() << "a partition needs a view";
  if (tileShape.size() != static_cast<size_t>(view.getRank()))
    return emitError() << "partition tile " << formatList(tileShape)
                       << " has rank " << tileShape.size()
                       << " but its view has rank " << view.getRank();
  return verifyStaticTileShape(emitError, "partition tile", tileShape);
}

SmallVector<int64_t> PartitionType::getGridShape() const {
  SmallVector<int64_t> grid;
  for (auto [d, t] : llvm::zip_equal(getView().getShape(), getTileShape()))
    grid.push_back(ShapedType::isDynamic(d) ? ShapedType::kDynamic
                                            : llvm::divideCeil(d, t));
  return grid;
}

RankedTensorType PartitionType::getTileType() const {
  return RankedTensorType::get(getTileShape(), getElementType());
}

OwnedType PartitionType::getOwnedType() const {
  return OwnedType::get(getContext(), getMode(), getTileShape(),
                        getElementType());
}

//===----------------------------------------------------------------------===//
// OwnedType
//===----------------------------------------------------------------------===//

Type OwnedType::parse(AsmParser &parser) {
  OwnershipMode mode;
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() || parseMode(parser, mode) || parser.parseComma() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return parser.getChecked<OwnedType>(parser.getContext(), mode, shape,
                                      elementType);
}

void OwnedType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyOwnershipMode(getMode()) << ", "
          << formatShape(getShape()) << "x" << getElementType() << ">";
}

LogicalResult OwnedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                OwnershipMode mode, ArrayRef<int64_t> shape,
                                Type elementType) {
  if (isSharedMode(mode) || mode == OwnershipMode::Add ||
      mode == OwnershipMode::Ticket)
    return emitError() << "an owned block is a block of an 'out' or 'inout' "
                          "partition, not of an '"
                       << stringifyOwnershipMode(mode) << "' one";
  if (!ViewType::isValidElementType(elementType))
    return emitError() << "owned block element type must be one of i1, i8, "
                          "i16, i32, i64, f8E4M3FN, f16, bf16, f32, f64; got "
                       << elementType;
  return verifyStaticTileShape(emitError, "owned block", shape);
}
