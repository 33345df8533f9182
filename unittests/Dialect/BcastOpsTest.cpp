//===- BcastOpsTest.cpp - Builders that infer bcast result types ----------===//
//
// Builds bcast ops without result types, as a front end would, and checks
// the types that shape inference gives them.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/IR/BcastOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::bcast;

namespace {
class BcastOpsTest : public ::testing::Test {
protected:
  BcastOpsTest() : builder(&context) {
    context.loadDialect<BcastDialect, func::FuncDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function whose arguments have `types`; the builder is left in its
  /// body.
  Block *makeFunction(TypeRange types) {
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                     builder.getFunctionType(types, {}));
    Block *body = func.addEntryBlock();
    builder.setInsertionPointToEnd(body);
    return body;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(shape,
                                 element ? element : builder.getF32Type());
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(BcastOpsTest, InfersBroadcastResultType) {
  Block *body = makeFunction({tensor({5, 1, 4, 1}), tensor({3, 1, 1})});
  auto add = AddOp::create(builder, builder.getUnknownLoc(),
                           body->getArgument(0), body->getArgument(1),
                           /*alpha=*/nullptr);
  EXPECT_EQ(add.getType(), tensor({5, 3, 4, 1}));
  func::ReturnOp::create(builder, builder.getUnknownLoc());
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(BcastOpsTest, InfersDynamicAndBoolResults) {
  int64_t q = ShapedType::kDynamic;
  Block *body = makeFunction({tensor({q, 1}), tensor({3}), tensor({q})});
  Location loc = builder.getUnknownLoc();
  auto lt =
      LtOp::create(builder, loc, body->getArgument(0), body->getArgument(1));
  EXPECT_EQ(lt.getType(), tensor({q, 3}, builder.getI1Type()));
  auto mul =
      MulOp::create(builder, loc, body->getArgument(0), body->getArgument(2));
  EXPECT_EQ(mul.getType(), tensor({q, q}));
  auto where = WhereOp::create(builder, loc, lt, body->getArgument(1),
                               body->getArgument(0));
  EXPECT_EQ(where.getType(), tensor({q, 3}));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(BcastOpsTest, InPlaceKeepsTheOperandType) {
  Block *body = makeFunction({tensor({5, 3, 4, 1}), tensor({3, 1, 1})});
  auto add = AddInPlaceOp::create(builder, builder.getUnknownLoc(),
                                  body->getArgument(0), body->getArgument(1),
                                  /*alpha=*/nullptr);
  EXPECT_EQ(add.getType(), tensor({5, 3, 4, 1}));
}

TEST_F(BcastOpsTest, InferenceFailsOnMismatch) {
  SmallVector<Type> inferred;
  Block *body = makeFunction({tensor({2}), tensor({3})});
  EXPECT_TRUE(failed(AddOp::inferReturnTypes(&context, std::nullopt,
                                             body->getArguments(), nullptr,
                                             nullptr, {}, inferred)));
}

TEST_F(BcastOpsTest, CompatibleReturnTypesAcceptRefinements) {
  int64_t q = ShapedType::kDynamic;
  EXPECT_TRUE(AddOp::isCompatibleReturnTypes(TypeRange{tensor({4, q})},
                                             TypeRange{tensor({4, 3})}));
  EXPECT_TRUE(AddOp::isCompatibleReturnTypes(TypeRange{tensor({4, 3})},
                                             TypeRange{tensor({q, 3})}));
  EXPECT_FALSE(AddOp::isCompatibleReturnTypes(TypeRange{tensor({4, 3})},
                                              TypeRange{tensor({4, 2})}));
  EXPECT_FALSE(AddOp::isCompatibleReturnTypes(
      TypeRange{tensor({4})}, TypeRange{tensor({4}, builder.getF64Type())}));
}
} // namespace
