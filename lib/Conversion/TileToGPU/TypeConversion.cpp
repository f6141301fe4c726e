//===- TypeConversion.cpp - the register types of a kernel's values ------===//
//
// The types convert-tile-to-gpu lowers a kernel's values to: its views'
// memrefs in the gpu.func signature, and its tiles' register vectors in
// the layouts the plans gave them (Layouts.h).
//
//===----------------------------------------------------------------------===//

#include "LoweringState.h"

using namespace mlir;
using namespace tile;
using namespace tile::gpu_lowering;

TileTypeConverter::TileTypeConverter(int64_t threads,
                                     const FragmentPlan *fragments) {
  // The most recently added conversion is tried first.
  addConversion([](Type type) { return type; });
  addConversion([](ViewType view) -> Type {
    auto layout = StridedLayoutAttr::get(
        view.getContext(), ShapedType::kDynamic, view.getStrides());
    return MemRefType::get(view.getShape(), view.getElementType(), layout);
  });
  addConversion([threads](RankedTensorType type) -> Type {
    return tileRegisterType(type, std::nullopt, threads);
  });
  if (!fragments)
    return;
  addConversion([fragments, threads](Value v) -> std::optional<Type> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    auto it = fragments->layouts.find(v);
    if (!type || it == fragments->layouts.end())
      return std::nullopt;
    return tileRegisterType(type, it->second, threads);
  });
}
