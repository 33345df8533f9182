//===- BcastDialect.h - The bcast dialect -----------------------*- C++ -*-===//
//
// Declares the bcast dialect class (generated from BcastBase.td).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_IR_BCASTDIALECT_H
#define BCAST_DIALECT_BCAST_IR_BCASTDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "bcast/Dialect/Bcast/IR/BcastOpsDialect.h.inc"

#endif // BCAST_DIALECT_BCAST_IR_BCASTDIALECT_H
