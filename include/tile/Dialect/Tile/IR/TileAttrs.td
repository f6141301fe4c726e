//===- TileAttrs.td - tile dialect enums and attributes ----*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_OwnershipMode : I32EnumAttr<"OwnershipMode",
    "how a kernel may access a view argument", [
      I32EnumAttrCase<"In", 0, "in">,
      I32EnumAttrCase<"Out", 1, "out">,
      I32EnumAttrCase<"InOut", 2, "inout">,
      I32EnumAttrCase<"Add", 3, "add">,
      I32EnumAttrCase<"Frozen", 4, "frozen">,
      I32EnumAttrCase<"Ticket", 5, "ticket">,
      I32EnumAttrCase<"Settled", 6, "settled">
    ]> {
  let cppNamespace = "::tile";
  let genSpecializedAttr = 0;
}

def Tile_Dimension : I32EnumAttr<"Dimension", "a launch grid dimension", [
      I32EnumAttrCase<"X", 0, "x">,
      I32EnumAttrCase<"Y", 1, "y">,
      I32EnumAttrCase<"Z", 2, "z">
    ]> {
  let cppNamespace = "::tile";
}

def Tile_RoundingMode : I32EnumAttr<"RoundingMode",
    "rounding of a narrowing floating-point conversion", [
      I32EnumAttrCase<"NearestEven", 0, "rne">,
      I32EnumAttrCase<"TowardZero", 1, "rtz">
    ]> {
  let cppNamespace = "::tile";
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
