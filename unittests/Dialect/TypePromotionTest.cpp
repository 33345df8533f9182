//===- TypePromotionTest.cpp - Tests of the type-rule module --------------===//
//
// The rules PyTorch 1.13 cannot check at test time (the barebones unsigned
// types arrived in 2.x) and the combination of dimensioned and zero-dim
// operands; test/Dialect/Bcast/promotion-torch.test checks the rest of the
// table against PyTorch.
//
//===----------------------------------------------------------------------===//

#include "bcast/Dialect/Bcast/Utils/TypePromotion.h"

#include "gtest/gtest.h"

using namespace mlir::bcast;

TEST(TypePromotion, BarebonesUnsignedOnlyWithThemselvesBoolAndFloats) {
  EXPECT_EQ(promoteTypes(DType::UInt32, DType::UInt32), DType::UInt32);
  EXPECT_EQ(promoteTypes(DType::UInt16, DType::Bool), DType::UInt16);
  EXPECT_EQ(promoteTypes(DType::Bool, DType::UInt64), DType::UInt64);
  EXPECT_EQ(promoteTypes(DType::UInt64, DType::Float16), DType::Float16);
  EXPECT_EQ(promoteTypes(DType::BFloat16, DType::UInt32), DType::BFloat16);
  EXPECT_FALSE(promoteTypes(DType::UInt32, DType::Int32));
  EXPECT_FALSE(promoteTypes(DType::UInt16, DType::UInt8));
  EXPECT_FALSE(promoteTypes(DType::Int64, DType::UInt64));
  EXPECT_FALSE(promoteTypes(DType::UInt16, DType::UInt32));
}

TEST(TypePromotion, ByteWithSigned) {
  EXPECT_EQ(promoteTypes(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promoteTypes(DType::Int32, DType::UInt8), DType::Int32);
  EXPECT_EQ(promoteTypes(DType::Bool, DType::UInt8), DType::UInt8);
  EXPECT_EQ(promoteTypes(DType::Float16, DType::BFloat16), DType::Float32);
  EXPECT_EQ(promoteTypes(DType::Int64, DType::Float16), DType::Float16);
}

TEST(TypePromotion, ZeroDimOperandsWinOnlyByCategory) {
  auto result = [](DType dim, DType zero) {
    return resultType(
               {{dim, OperandKind::Dimensioned}, {zero, OperandKind::ZeroDim}})
        .type;
  };
  EXPECT_EQ(result(DType::Int32, DType::Float64), DType::Float64);
  EXPECT_EQ(result(DType::Float16, DType::Float64), DType::Float16);
  EXPECT_EQ(result(DType::Int8, DType::Int64), DType::Int8);
  EXPECT_EQ(result(DType::Bool, DType::Int64), DType::Int64);
  EXPECT_EQ(result(DType::UInt8, DType::Int8), DType::UInt8);
}

TEST(TypePromotion, UnsupportedPairsInAnyRankCombination) {
  PromotionResult r = resultType({{DType::UInt32, OperandKind::Dimensioned},
                                  {DType::Int32, OperandKind::ZeroDim}});
  EXPECT_FALSE(r.type);
  EXPECT_EQ(r.unsupportedLhs, DType::UInt32);
  EXPECT_EQ(r.unsupportedRhs, DType::Int32);
  EXPECT_FALSE(resultType({{DType::Int8, OperandKind::ZeroDim},
                           {DType::UInt16, OperandKind::Dimensioned}})
                   .type);
}

TEST(TypePromotion, WrappedNumbersAreWeak) {
  auto withNumber = [](DType tensor, OperandKind kind, DType number) {
    return resultType({{tensor, kind}, {number, OperandKind::WrappedNumber}})
        .type;
  };
  // int8_array * 5 stays int8; an int array times 2.5 is float32.
  EXPECT_EQ(withNumber(DType::Int8, OperandKind::Dimensioned, DType::Int64),
            DType::Int8);
  EXPECT_EQ(withNumber(DType::Int32, OperandKind::Dimensioned, DType::Float32),
            DType::Float32);
  // A zero-dim f16 tensor keeps its type with a Python float...
  EXPECT_EQ(withNumber(DType::Float16, OperandKind::ZeroDim, DType::Float32),
            DType::Float16);
  // ... and a bool tensor with a Python int becomes Long.
  EXPECT_EQ(withNumber(DType::Bool, OperandKind::Dimensioned, DType::Int64),
            DType::Int64);
  EXPECT_EQ(withNumber(DType::Float64, OperandKind::Dimensioned, DType::Bool),
            DType::Float64);
}

TEST(TypePromotion, CanCast) {
  EXPECT_TRUE(canCast(DType::Float64, DType::Float32));
  EXPECT_TRUE(canCast(DType::Int64, DType::Int8));
  EXPECT_TRUE(canCast(DType::Bool, DType::Bool));
  EXPECT_FALSE(canCast(DType::Float32, DType::Int64));
  EXPECT_FALSE(canCast(DType::Float16, DType::Bool));
  EXPECT_FALSE(canCast(DType::Int32, DType::Bool));
}

TEST(TypePromotion, TorchNames) {
  EXPECT_EQ(getTorchName(DType::Int64), "Long");
  EXPECT_EQ(getTorchName(DType::UInt8), "Byte");
  EXPECT_EQ(getTorchName(DType::Float32), "Float");
  EXPECT_EQ(getTorchName(DType::BFloat16), "BFloat16");
}
