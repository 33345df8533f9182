//===- BcastReductions.cpp - Reductions, softmax and sum_to_size ----------===//
//
// The rules every reduction shares, which ODS's Bcast_ReductionOp calls:
// PyTorch's rules for their dims and empty inputs, in the order the
// verifier checks them (dims, element type, sizes, result type); shape
// inference; and folding on constants, which groups the elements and asks
// each group of the op's entry (ReductionFunctions.cpp, which also has each
// reduction's element type rule). Also softmax, log_softmax and
// sum_to_size, which are not of the family. The shape rules themselves
// (dim wrapping, reduced shapes, sum_to_size's expandability) are in the
// shape-rule module (Utils/BroadcastShape.h).
//
// softmax and sum_to_size are folded for f16, bf16 and f32 inputs by
// computing in f64 and rounding once (integer sums exactly), as the
// reductions' entries fold theirs.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"
#include "bcast/Dialect/Bcast/IR/ElementFunctions.h"
#include "bcast/Dialect/Bcast/Utils/BroadcastShape.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::bcast;
using llvm::APFloat;
using llvm::APInt;

/// The largest constant input a reduction folds (folding never iterates
/// over a huge splat).
static constexpr int64_t kMaxFoldedInputElements = 1 << 16;
/// The largest result folded into a constant.
static constexpr int64_t kMaxFoldedResultElements = 1024;

/// PyTorch's name of `type` (`Long`), or MLIR's for types it lacks.
static std::string getTypeName(Type type) {
  if (std::optional<DType> dtype = getDType(type))
    return getTorchName(*dtype).str();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

//===----------------------------------------------------------------------===//
// Dims and shapes
//===----------------------------------------------------------------------===//

/// The dims of `spec` for rank `rank`, normalized in the given order, or
/// the sentence.
static std::optional<std::string>
normalizeSpecDims(const ReductionSpec &spec, int64_t rank,
                  SmallVectorImpl<int64_t> &dims) {
  if (!spec.dims) {
    dims.assign(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
    return std::nullopt;
  }
  if (spec.dims->empty())
    return std::string("`dims` is empty: omit it to reduce every dimension "
                       "(PyTorch and NumPy disagree on what an empty list "
                       "means)");
  return normalizeReductionDims(rank, *spec.dims, dims);
}

SmallVector<int64_t> bcast::getReducedDims(const ReductionSpec &spec,
                                           int64_t rank) {
  SmallVector<int64_t> dims;
  [[maybe_unused]] std::optional<std::string> error =
      normalizeSpecDims(spec, rank, dims);
  assert(!error && "the verifier checked the dims");
  llvm::sort(dims);
  return dims;
}

/// The result shape of `spec` on `shape` (the spec must verify). An
/// argmax without a dim gives rank 0, or all ones with keepdim.
static SmallVector<int64_t> getReducedShape(const ReductionSpec &spec,
                                            ArrayRef<int64_t> shape) {
  return reduceShape(shape, getReducedDims(spec, shape.size()), spec.keepdim);
}

LogicalResult
bcast::detail::inferReductionType(StringRef opName, const ReductionSpec &spec,
                                  std::optional<Location> location, Type input,
                                  Type element,
                                  SmallVectorImpl<Type> &inferred) {
  auto type = dyn_cast<RankedTensorType>(input);
  SmallVector<int64_t> dims;
  if (!type || !element || normalizeSpecDims(spec, type.getRank(), dims))
    return emitOptionalError(location, "'", opName,
                             "' op has invalid dims or element type");
  llvm::sort(dims);
  inferred.push_back(RankedTensorType::get(
      reduceShape(type.getShape(), dims, spec.keepdim), element));
  return success();
}

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult bcast::detail::verifyReduction(ReductionOpInterface op) {
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ArrayRef<int64_t> shape = inputType.getShape();
  ReductionSpec spec = op.getSpec();
  StringRef name = op.getReductionName();

  // 1. The dims, as PyTorch wraps them.
  SmallVector<int64_t> dims;
  if (std::optional<std::string> error =
          normalizeSpecDims(spec, inputType.getRank(), dims))
    return op->emitOpError() << *error;

  // 2. The element type.
  std::string error;
  Type element = op.getResultElementType(inputType.getElementType(), &error);
  if (!element)
    return op->emitOpError() << error;

  // 3. Reducing nothing where an element must be picked.
  if (op.picksElement()) {
    if (!spec.dims) {
      if (llvm::is_contained(shape, 0))
        return op->emitOpError()
               << name
               << "(): Expected reduction dim to be specified for "
                  "input.numel() == 0."
               << op.getUnspecifiedDimHint();
    } else {
      for (int64_t dim : dims)
        if (shape[dim] == 0)
          return op->emitOpError() << name << "(): Expected reduction dim "
                                   << dim << " to have non-zero size.";
    }
  }

  // 4. The result type.
  if (resultType.getElementType() != element)
    return op->emitOpError()
           << "result element type " << resultType.getElementType()
           << " does not match the " << name << " element type " << element;
  SmallVector<int64_t> reduced = getReducedShape(spec, shape);
  if (!isCompatibleShape(reduced, resultType.getShape()))
    return op->emitOpError()
           << "result shape " << formatShape(resultType.getShape())
           << " is not compatible with the reduced shape "
           << formatShape(reduced);
  return success();
}

Speculation::Speculatability
bcast::detail::getReductionSpeculatability(ReductionOpInterface op) {
  // The lowering checks dynamic sizes at run time: a declared static result
  // size, and a reduced size that must not be 0.
  auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
  return inputType.hasStaticShape() ? Speculation::Speculatable
                                    : Speculation::NotSpeculatable;
}

//===----------------------------------------------------------------------===//
// softmax, log_softmax
//===----------------------------------------------------------------------===//

/// The kernel PyTorch names when it has none for an element type: over
/// the last dim, softmax's or log_softmax's own; over another, both name
/// softmax's (PyTorch 1.13's dispatch).
static StringRef getSoftmaxKernel(bool log, bool lastDim) {
  if (!lastDim)
    return "softmax_kernel_impl";
  return log ? "log_softmax_lastdim_kernel_impl"
             : "softmax_lastdim_kernel_impl";
}

/// The result type of softmax over `x` of type `input` with the optional
/// `dtype`: the input's shape, of `dtype`'s elements.
static Type getSoftmaxType(Type input, std::optional<Type> dtype) {
  auto tensor = dyn_cast<RankedTensorType>(input);
  if (!tensor || !dtype)
    return input;
  return tensor.clone(*dtype);
}

static LogicalResult verifySoftmax(Operation *op, int64_t dim,
                                   std::optional<Type> dtype, bool log) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  SmallVector<int64_t> dims;
  if (std::optional<std::string> error =
          normalizeReductionDims(type.getRank(), {dim}, dims))
    return op->emitOpError() << *error;
  // The kernel runs on the input converted to `dtype`.
  Type element = dtype ? *dtype : type.getElementType();
  if (!isa<FloatType>(element)) {
    bool lastDim = type.getRank() == 0 || dims.front() == type.getRank() - 1;
    return op->emitOpError()
           << "\"" << getSoftmaxKernel(log, lastDim)
           << "\" not implemented for '" << getTypeName(element) << "'";
  }
  // Checked here, before the inferred type is (with its vaguer sentence).
  Type expected = getSoftmaxType(type, dtype);
  Type result = op->getResult(0).getType();
  if (result != expected)
    return op->emitOpError()
           << "result type " << result << " does not match the "
           << op->getName().stripDialect() << " result type " << expected;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifySoftmax(getOperation(), getDim(), getDtype(), /*log=*/false);
}

LogicalResult LogSoftmaxOp::verify() {
  return verifySoftmax(getOperation(), getDim(), getDtype(), /*log=*/true);
}

/// softmax's and log_softmax's result type, from their adaptor.
template <typename Adaptor>
static LogicalResult inferSoftmaxType(Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      getSoftmaxType(adaptor.getX().getType(), adaptor.getDtype()));
  return success();
}

LogicalResult
SoftmaxOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                            ValueRange operands, DictionaryAttr attributes,
                            OpaqueProperties properties, RegionRange regions,
                            SmallVectorImpl<Type> &inferred) {
  return inferSoftmaxType(Adaptor(operands, attributes, properties, regions),
                          inferred);
}

LogicalResult
LogSoftmaxOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                               ValueRange operands, DictionaryAttr attributes,
                               OpaqueProperties properties, RegionRange regions,
                               SmallVectorImpl<Type> &inferred) {
  return inferSoftmaxType(Adaptor(operands, attributes, properties, regions),
                          inferred);
}

//===----------------------------------------------------------------------===//
// sum_to_size
//===----------------------------------------------------------------------===//

LogicalResult SumToSizeOp::verify() {
  RankedTensorType inputType = getX().getType();
  RankedTensorType resultType = getType();
  if (std::optional<std::string> error =
          checkSumToSize(inputType.getShape(), resultType.getShape()))
    return emitOpError() << *error;
  Type input = inputType.getElementType();
  Type declared = resultType.getElementType();
  bool atRunTime = false;
  Type sum = inferElementType(inputType, resultType.getShape(), &atRunTime);
  if (declared == sum || (atRunTime && declared == input))
    return success();
  if (atRunTime)
    return emitOpError() << "result element type " << declared << " must be "
                         << input << " or " << sum
                         << ", the input's or the sum's element type "
                            "(whether sum_to_size sums here depends on a "
                            "dynamic size)";
  if (sum == input)
    return emitOpError() << "result element type " << declared
                         << " must equal the input's element type " << input
                         << " (sum_to_size sums nothing here)";
  return emitOpError() << "result element type " << declared << " must be "
                       << sum
                       << ", the sum's element type (sum_to_size sums here)";
}

Speculation::Speculatability SumToSizeOp::getSpeculatability() {
  return getX().getType().hasStaticShape() && getType().hasStaticShape()
             ? Speculation::Speculatable
             : Speculation::NotSpeculatable;
}

//===----------------------------------------------------------------------===//
// Folding
//===----------------------------------------------------------------------===//

namespace {
/// Constant elements grouped by the result element they reduce into.
struct Groups {
  /// Per result element, the linear input indices reduced into it, in
  /// input order.
  SmallVector<SmallVector<int64_t>> members;
  /// Per input element, its index along the reduced dims taken together
  /// (row-major over them): argmax's index.
  SmallVector<int64_t> reducedIndex;
};
} // namespace

/// Groups the elements of a static `shape` by the reduction over the
/// sorted `dims`.
static Groups groupElements(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> kept;
  for (int64_t dim = 0, rank = shape.size(); dim < rank; ++dim)
    if (!llvm::is_contained(dims, dim))
      kept.push_back(dim);
  int64_t results = 1;
  for (int64_t dim : kept)
    results *= shape[dim];
  Groups groups;
  groups.members.resize(results);
  int64_t count = *getNumElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t result = 0, reduced = 0;
    for (int64_t dim = 0, rank = shape.size(); dim < rank; ++dim) {
      if (llvm::is_contained(dims, dim))
        reduced = reduced * shape[dim] + index[dim];
      else
        result = result * shape[dim] + index[dim];
    }
    groups.members[result].push_back(linear);
    groups.reducedIndex.push_back(reduced);
    for (int64_t dim = shape.size(); dim-- > 0;) {
      if (++index[dim] < shape[dim])
        break;
      index[dim] = 0;
    }
  }
  return groups;
}

/// `value` (computed in f64) rounded once to the float type `type`.
static APFloat roundTo(double value, Type type) {
  APFloat result(value);
  bool losesInfo = false;
  result.convert(cast<FloatType>(type).getFloatSemantics(),
                 APFloat::rmNearestTiesToEven, &losesInfo);
  return result;
}

static double toDouble(const APFloat &value) {
  APFloat copy = value;
  bool losesInfo = false;
  copy.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return copy.convertToDouble();
}

OpFoldResult bcast::detail::foldReduction(ReductionOpInterface op,
                                          Attribute input) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(input);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!dense || !resultType.hasStaticShape())
    return {};
  RankedTensorType inputType = cast<RankedTensorType>(dense.getType());
  std::optional<int64_t> count = getNumElements(inputType.getShape());
  std::optional<int64_t> results = getNumElements(resultType.getShape());
  if (!count || *count > kMaxFoldedInputElements || !results ||
      *results > kMaxFoldedResultElements)
    return {};
  // A constant more static than the op's operand type: fold only what the
  // result type states.
  ReductionSpec spec = op.getSpec();
  if (getReducedShape(spec, inputType.getShape()) !=
      ArrayRef<int64_t>(resultType.getShape()))
    return {};

  Groups groups = groupElements(inputType.getShape(),
                                getReducedDims(spec, inputType.getRank()));
  SmallVector<Scalar> values;
  if (isa<FloatType>(inputType.getElementType()))
    llvm::append_range(values, dense.getValues<APFloat>());
  else
    llvm::append_range(values, dense.getValues<APInt>());
  // `dtype`: the elements converted first, as the lowering converts them.
  if (Type conversion = op.getInputConversion()) {
    for (Scalar &value : values) {
      std::optional<Scalar> converted =
          foldConversion(value, inputType.getElementType(), conversion);
      if (!converted)
        return {};
      value = *converted;
    }
  }
  SmallVector<APFloat> floats;
  SmallVector<APInt> integers;
  SmallVector<Scalar> group;
  SmallVector<int64_t> indices;
  for (ArrayRef<int64_t> members : groups.members) {
    group.clear();
    indices.clear();
    for (int64_t member : members) {
      group.push_back(values[member]);
      indices.push_back(groups.reducedIndex[member]);
    }
    std::optional<Scalar> folded = op.foldGroup(group, indices);
    if (!folded)
      return {};
    if (const auto *value = std::get_if<APFloat>(&*folded))
      floats.push_back(*value);
    else
      integers.push_back(std::get<APInt>(*folded));
  }
  if (isa<FloatType>(resultType.getElementType()))
    return DenseElementsAttr::get(resultType, floats);
  return DenseElementsAttr::get(resultType, integers);
}

/// softmax and log_softmax on constants: f16, bf16 and f32 in f64, rounded
/// once.
static OpFoldResult foldSoftmax(Operation *op, Attribute input, int64_t dim,
                                bool log) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(input);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!dense || dense.getType() != resultType ||
      resultType.getElementType().isF64())
    return {};
  std::optional<int64_t> count = getNumElements(resultType.getShape());
  if (!count || *count > kMaxFoldedResultElements)
    return {};
  // Nothing to compute; grouping would still size one group per element of
  // the other dims, which a 0 along `dim` does not bound (fuzz finding 17:
  // `[0,2147483648,1,2]` over dim 0 asked for 2^32 groups).
  if (*count == 0)
    return dense;
  SmallVector<int64_t> dims;
  if (normalizeReductionDims(resultType.getRank(), {dim}, dims))
    return {};
  Groups groups = groupElements(resultType.getShape(), dims);
  SmallVector<double> values;
  for (const APFloat &value : dense.getValues<APFloat>())
    values.push_back(toDouble(value));
  SmallVector<APFloat> folded(values.size(), APFloat(0.0));
  for (ArrayRef<int64_t> members : groups.members) {
    double max = -std::numeric_limits<double>::infinity();
    bool nan = false;
    for (int64_t m : members) {
      nan |= std::isnan(values[m]);
      max = std::fmax(max, values[m]);
    }
    double sum = 0;
    for (int64_t m : members)
      sum += std::exp(values[m] - max);
    for (int64_t m : members) {
      double shifted = values[m] - max;
      double result = log ? shifted - std::log(sum) : std::exp(shifted) / sum;
      if (nan)
        result = std::numeric_limits<double>::quiet_NaN();
      folded[m] = roundTo(result, resultType.getElementType());
    }
  }
  return DenseElementsAttr::get(resultType, folded);
}

/// The constant input of softmax converted to `dtype` (as the lowering
/// converts it), or null where a conversion is not folded.
static Attribute convertSoftmaxInput(Attribute input,
                                     std::optional<Type> dtype) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(input);
  if (!dense || !dtype || dense.getElementType() == *dtype)
    return input;
  // Only float results are verified.
  if (!isa<FloatType>(*dtype))
    return {};
  auto type = dense.getType().clone(*dtype);
  std::optional<int64_t> count = getNumElements(type.getShape());
  if (!count || *count > kMaxFoldedResultElements)
    return {};
  Type from = dense.getElementType();
  SmallVector<APFloat> converted;
  auto convert = [&](const Scalar &value) {
    std::optional<Scalar> result = foldConversion(value, from, *dtype);
    if (result)
      converted.push_back(std::get<APFloat>(*result));
    return result.has_value();
  };
  if (isa<FloatType>(from)) {
    for (const APFloat &value : dense.getValues<APFloat>())
      if (!convert(value))
        return {};
  } else {
    for (const APInt &value : dense.getValues<APInt>())
      if (!convert(value))
        return {};
  }
  return DenseElementsAttr::get(type, converted);
}

OpFoldResult SoftmaxOp::fold(FoldAdaptor adaptor) {
  return foldSoftmax(getOperation(),
                     convertSoftmaxInput(adaptor.getX(), getDtype()), getDim(),
                     false);
}

OpFoldResult LogSoftmaxOp::fold(FoldAdaptor adaptor) {
  return foldSoftmax(getOperation(),
                     convertSoftmaxInput(adaptor.getX(), getDtype()), getDim(),
                     true);
}

/// The dims sum_to_size reduces from a static input shape to a static
/// target: the leading ones, and those the target has as 1.
static SmallVector<int64_t> getSumToSizeDims(ArrayRef<int64_t> input,
                                             ArrayRef<int64_t> target) {
  SmallVector<int64_t> dims;
  int64_t offset = input.size() - target.size();
  for (int64_t dim = 0, rank = input.size(); dim < rank; ++dim)
    if (dim < offset || (target[dim - offset] == 1 && input[dim] != 1))
      dims.push_back(dim);
  return dims;
}

OpFoldResult SumToSizeOp::fold(FoldAdaptor adaptor) {
  RankedTensorType type = getType();
  if (getX().getType() == type)
    return getX();
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getX());
  if (!dense || !type.hasStaticShape())
    return {};
  ArrayRef<int64_t> inputShape = dense.getType().getShape();
  if (checkSumToSize(inputShape, type.getShape()))
    return {};
  std::optional<int64_t> count = getNumElements(inputShape);
  std::optional<int64_t> results = getNumElements(type.getShape());
  if (!count || *count > kMaxFoldedInputElements || !results ||
      *results > kMaxFoldedResultElements)
    return {};
  Type element = type.getElementType();
  Groups groups =
      groupElements(inputShape, getSumToSizeDims(inputShape, type.getShape()));
  if (isa<FloatType>(element)) {
    if (element.isF64())
      return {};
    SmallVector<APFloat> values(dense.getValues<APFloat>());
    SmallVector<APFloat> folded;
    for (ArrayRef<int64_t> members : groups.members) {
      double sum = 0;
      for (int64_t m : members)
        sum += toDouble(values[m]);
      folded.push_back(roundTo(sum, element));
    }
    return DenseElementsAttr::get(type, folded);
  }
  SmallVector<APInt> values(dense.getValues<APInt>());
  unsigned width = element.getIntOrFloatBitWidth();
  // A sum (into i64 or ui64) widens its elements: i1 and unsigned ones
  // with zeros, signed ones with their sign.
  auto inputElement = cast<IntegerType>(dense.getElementType());
  bool zeroExtend = inputElement.isUnsigned() || inputElement.getWidth() == 1;
  for (APInt &value : values)
    value = zeroExtend ? value.zextOrTrunc(width) : value.sextOrTrunc(width);
  SmallVector<APInt> folded;
  for (ArrayRef<int64_t> members : groups.members) {
    APInt sum(width, 0);
    // An i1 result sums nothing (one element each); were it to, i1 sums as
    // logical or, as bcast.add.
    for (int64_t m : members)
      sum = width == 1 ? sum | values[m] : sum + values[m];
    folded.push_back(sum);
  }
  return DenseElementsAttr::get(type, folded);
}
