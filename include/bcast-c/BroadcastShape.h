/*===- BroadcastShape.h - C API for the broadcasting rule ----------*- C
-*-===*\
|*                                                                            *|
|* Broadcasts shapes as NumPy and PyTorch do, without an MLIRContext, with    *|
|* the same module (and so the same answers and sentences) as bcast's op      *|
|* verifiers: either the broadcast shape or PyTorch's message, e.g. "The size *|
|* of tensor a (2) must match the size of tensor b (3) at non-singleton       *|
|* dimension 1".                                                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef BCAST_C_BROADCASTSHAPE_H
#define BCAST_C_BROADCASTSHAPE_H

#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The outcome of bcastBroadcastShapes: owns the shape or the message until
 * bcastBroadcastResultDestroy. */
typedef struct BcastBroadcastResult {
  void *ptr;
} BcastBroadcastResult;

/** Why two operands do not broadcast: operands are numbered from 0 (the
 * message calls them a, b, ...); `dim` counts from the left in the broadcast
 * rank; the two static sizes that disagree there. */
typedef struct BcastSizeMismatch {
  intptr_t lhsOperand;
  intptr_t rhsOperand;
  int64_t lhsSize;
  int64_t rhsSize;
  int64_t dim;
} BcastSizeMismatch;

/** The size that stands for a dimension unknown at compile time (`?`), equal
 * to mlirShapedTypeGetDynamicSize(). */
MLIR_CAPI_EXPORTED int64_t bcastGetDynamicSize(void);

/** Broadcasts `numShapes` shapes together: shape i has `ranks[i]` sizes at
 * `shapes[i]` (which may be NULL when the rank is 0). Sizes are >= 0 or
 * bcastGetDynamicSize(). Never fails to return a result: invalid arguments
 * (a negative count, rank or size, a NULL array) give a failed result whose
 * message says what is wrong. */
MLIR_CAPI_EXPORTED BcastBroadcastResult bcastBroadcastShapes(
    intptr_t numShapes, const intptr_t *ranks, const int64_t *const *shapes);

/** Whether the shapes broadcast. */
MLIR_CAPI_EXPORTED bool bcastBroadcastResultSucceeded(BcastBroadcastResult r);

/** The broadcast rank (0 on failure). */
MLIR_CAPI_EXPORTED intptr_t bcastBroadcastResultGetRank(BcastBroadcastResult r);

/** The broadcast shape, bcastBroadcastResultGetRank(r) sizes (NULL when the
 * rank is 0 or on failure); dynamic sizes are bcastGetDynamicSize(). */
MLIR_CAPI_EXPORTED const int64_t *
bcastBroadcastResultGetShape(BcastBroadcastResult r);

/** On failure, the message (PyTorch's sentence for a size mismatch);
 * otherwise an empty string. Valid until the result is destroyed. */
MLIR_CAPI_EXPORTED MlirStringRef
bcastBroadcastResultGetMessage(BcastBroadcastResult r);

/** On a size mismatch, fills `*mismatch` and returns true; returns false on
 * success and for invalid arguments. */
MLIR_CAPI_EXPORTED bool
bcastBroadcastResultGetMismatch(BcastBroadcastResult r,
                                BcastSizeMismatch *mismatch);

/** Frees the result. */
MLIR_CAPI_EXPORTED void bcastBroadcastResultDestroy(BcastBroadcastResult r);

#ifdef __cplusplus
}
#endif

#endif /* BCAST_C_BROADCASTSHAPE_H */
