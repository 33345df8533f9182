//===- MatmulRules.cpp - torch.matmul's shape and dtype rules -------------===//
//
// Implements the rank, batch-broadcast, contraction and element-type rules of
// `bcast.matmul` and their sentences, in PyTorch 1.13's order: a rank-0
// operand, then the batch dims (the broadcasting rule of BroadcastShape.h),
// then the contracted sizes, then the kernel's type checks (except `dot`,
// which rejects mixed types first). Which kernel PyTorch reaches, and so
// which operand's type it checks first, follows `at::matmul`'s dispatch on
// the ranks.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/MatmulRules.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::bcast;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Sentences
//===----------------------------------------------------------------------===//

std::string bcast::formatMatmulRankError(int64_t lhsRank, int64_t rhsRank) {
  return (llvm::Twine("both arguments to matmul need to be at least 1D, but "
                      "they are ") +
          llvm::Twine(lhsRank) + "D and " + llvm::Twine(rhsRank) + "D")
      .str();
}

std::string bcast::formatMatmulShape(ArrayRef<int64_t> shape) {
  std::string result;
  llvm::raw_string_ostream os(result);
  llvm::interleave(
      shape, os,
      [&](int64_t size) {
        if (isDynamicSize(size))
          os << "?";
        else
          os << size;
      },
      "x");
  return result;
}

std::string bcast::formatMatmulContractionMismatch(StringRef lhsShape,
                                                   StringRef rhsShape) {
  return (llvm::Twine("mat1 and mat2 shapes cannot be multiplied (") +
          lhsShape + " and " + rhsShape + ")")
      .str();
}

std::string MatmulMismatch::message(ArrayRef<int64_t> lhs,
                                    ArrayRef<int64_t> rhs) const {
  switch (kind) {
  case Kind::Rank0:
    return formatMatmulRankError(lhs.size(), rhs.size());
  case Kind::Batch:
    return batch.message();
  case Kind::Contracted:
    return formatMatmulContractionMismatch(formatMatmulShape(lhs),
                                           formatMatmulShape(rhs));
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

SmallVector<int64_t> bcast::getMatmulBatchShape(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs) {
  MatmulLayout layout(lhs.size(), rhs.size());
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.take_front(layout.lhsBatchRank()),
                      rhs.take_front(layout.rhsBatchRank()));
  assert(batch && "the batch dims must broadcast");
  return *batch;
}

std::optional<SmallVector<int64_t>>
bcast::inferMatmulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                        MatmulMismatch *mismatch) {
  auto fail = [&](MatmulMismatch::Kind kind,
                  const SizeMismatch &batch = {}) -> std::nullopt_t {
    if (mismatch) {
      mismatch->kind = kind;
      mismatch->batch = batch;
    }
    return std::nullopt;
  };
  if (lhs.empty() || rhs.empty())
    return fail(MatmulMismatch::Kind::Rank0);
  MatmulLayout layout(lhs.size(), rhs.size());

  SizeMismatch batchMismatch;
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(lhs.take_front(layout.lhsBatchRank()),
                      rhs.take_front(layout.rhsBatchRank()), &batchMismatch);
  if (!shape)
    return fail(MatmulMismatch::Kind::Batch, batchMismatch);

  int64_t lhsK = lhs[layout.lhsK()], rhsK = rhs[layout.rhsK()];
  if (!isDynamicSize(lhsK) && !isDynamicSize(rhsK) && lhsK != rhsK)
    return fail(MatmulMismatch::Kind::Contracted);

  if (layout.hasM())
    shape->push_back(lhs[layout.lhsM()]);
  if (layout.hasN())
    shape->push_back(rhs[layout.rhsN()]);
  return shape;
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

MatmulKernelChoice bcast::getMatmulKernel(int64_t lhsRank, int64_t rhsRank) {
  if (lhsRank == 1 && rhsRank == 1)
    return {MatmulKernel::Dot, false};
  if (lhsRank >= 3 && rhsRank >= 3)
    return {MatmulKernel::Bmm, false};
  // PyTorch folds the N-D operand's batch dims into its rows and calls mv or
  // mm; an N-D rhs is folded by transposing the whole product, so that rhs
  // becomes the kernel's first operand.
  if (rhsRank >= 3)
    return {lhsRank == 1 ? MatmulKernel::Mv : MatmulKernel::Mm, true};
  return {rhsRank == 1 ? MatmulKernel::Mv : MatmulKernel::Mm, false};
}

StringRef bcast::getMatmulKernelName(MatmulKernel kernel) {
  switch (kernel) {
  case MatmulKernel::Dot:
    return "dot";
  case MatmulKernel::Mv:
    return "addmv_impl_cpu";
  case MatmulKernel::Mm:
    return "addmm_impl_cpu_";
  case MatmulKernel::Bmm:
    return "bmm";
  }
  return {};
}

bool bcast::isMatmulElementType(DType type) {
  switch (type) {
  case DType::Float32:
  case DType::Float64:
  case DType::BFloat16:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::UInt8:
    return true;
  default:
    return false;
  }
}

std::optional<std::string> bcast::checkMatmulElementTypes(DType lhs, DType rhs,
                                                          int64_t lhsRank,
                                                          int64_t rhsRank) {
  MatmulKernelChoice choice = getMatmulKernel(lhsRank, rhsRank);
  if (choice.kernel == MatmulKernel::Dot && lhs != rhs)
    return ("dot : expected both vectors to have same dtype, but found " +
            getTorchName(lhs) + " and " + getTorchName(rhs))
        .str();
  DType first = choice.rhsFirst ? rhs : lhs;
  DType second = choice.rhsFirst ? lhs : rhs;
  if (!isMatmulElementType(first))
    return ("\"" + getMatmulKernelName(choice.kernel) +
            "\" not implemented for '" + getTorchName(first) + "'")
        .str();
  if (first != second)
    return ("expected scalar type " + getTorchName(first) + " but found " +
            getTorchName(second))
        .str();
  return std::nullopt;
}
