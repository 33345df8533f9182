/*===- Dialects.h - C API for the bcast dialect and its passes ----*- C -*-===*\
|*                                                                            *|
|* The C entry points that make bcast available to a C embedder: the dialect  *|
|* handle (for mlirDialectHandleInsertDialect & co.), the counterpart of      *|
|* mlir::bcast::registerAllBcastDialectsAndPasses, and the registration of    *|
|* the passes and the --bcast-to-linalg / --bcast-to-llvm pipelines, which   *|
|* are then reachable by name through mlirParsePassPipeline and              *|
|* mlirOpPassManagerAddPipeline. Link libBcastCAPI.so, which also holds      *|
|* MLIR's core C API (mlir-c/IR.h, mlir-c/Pass.h, mlir-c/Diagnostics.h) built *|
|* over libMLIR.so; see docs/Embedding.md.                                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef BCAST_C_DIALECTS_H
#define BCAST_C_DIALECTS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/** mlirGetDialectHandle__bcast__(): the bcast dialect's handle. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Bcast, bcast);

/** Adds the bcast dialect, the dialects bcast IR is written with (func,
 * arith, tensor) and the interface models bcast's pipelines need to
 * `registry`, and registers the passes and pipelines (as
 * bcastRegisterPassesAndPipelines). After appending `registry` to a context
 * with mlirContextAppendDialectRegistry, that context parses bcast IR and
 * runs "bcast-to-linalg" and "bcast-to-llvm". */
MLIR_CAPI_EXPORTED void
bcastRegisterAllDialectsAndPasses(MlirDialectRegistry registry);

/** Registers bcast's passes, its pipelines ("bcast-to-linalg",
 * "bcast-to-llvm", with options such as "bcast-to-llvm{parallel=false}") and
 * the upstream passes they are built from with the global pass registry.
 * Idempotent. */
MLIR_CAPI_EXPORTED void bcastRegisterPassesAndPipelines(void);

/** The bytecode version the bcast dialect writes (kBcastBytecodeVersion;
 * docs/Embedding.md). */
MLIR_CAPI_EXPORTED int64_t bcastGetBytecodeVersion(void);

#ifdef __cplusplus
}
#endif

#endif /* BCAST_C_DIALECTS_H */
