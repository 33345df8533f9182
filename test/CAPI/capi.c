/*===- capi.c - Test of bcast's C API ------------------------------*- C -*-===*\
|*                                                                            *|
|* Drives bcast through its C API as a C embedder would: registers the        *|
|* dialect and pipelines, parses, verifies and diagnoses IR, runs             *|
|* bcast-to-linalg and bcast-to-llvm, round-trips bytecode, and queries the   *|
|* broadcasting rule. Built by CMake as bcast-capi-test (CMakeLists.txt).     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

// RUN: bcast-capi-test 2>&1 | FileCheck %s

#include "bcast-c/BroadcastShape.h"
#include "bcast-c/Dialects.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Collects printed text into a growing buffer (for bytecode). */
typedef struct {
  char *data;
  size_t length;
} Buffer;

static void appendToBuffer(MlirStringRef text, void *userData) {
  Buffer *buffer = (Buffer *)userData;
  buffer->data = realloc(buffer->data, buffer->length + text.length);
  if (!buffer->data)
    abort();
  memcpy(buffer->data + buffer->length, text.data, text.length);
  buffer->length += text.length;
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static const char *kernel =
    "func.func @kernel(%a: tensor<3x1xf32>, %b: tensor<4xf32>) -> "
    "tensor<3x4xf32> {\n"
    "  %r = bcast.add %a, %b : (tensor<3x1xf32>, tensor<4xf32>) -> "
    "tensor<3x4xf32>\n"
    "  return %r : tensor<3x4xf32>\n"
    "}\n";

static MlirContext createContext(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  bcastRegisterAllDialectsAndPasses(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);
  return context;
}

static void testDialectHandle(void) {
  // CHECK-LABEL: testDialectHandle
  printf("testDialectHandle\n");
  MlirDialectHandle handle = mlirGetDialectHandle__bcast__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  // CHECK: namespace: bcast
  printf("namespace: %.*s\n", (int)ns.length, ns.data);

  MlirContext context = mlirContextCreate();
  mlirDialectHandleRegisterDialect(handle, context);
  MlirDialect dialect = mlirDialectHandleLoadDialect(handle, context);
  // CHECK: loaded: 1
  printf("loaded: %d\n", !mlirDialectIsNull(dialect));
  // CHECK: bytecode version: 1
  printf("bytecode version: %lld\n", (long long)bcastGetBytecodeVersion());
  mlirContextDestroy(context);
}

static void testParseVerifyAndDiagnose(void) {
  // CHECK-LABEL: testParseVerifyAndDiagnose
  printf("testParseVerifyAndDiagnose\n");
  MlirContext context = createContext();
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kernel));
  // CHECK: parsed: 1 verified: 1
  printf("parsed: %d verified: %d\n", !mlirModuleIsNull(module),
         mlirOperationVerify(mlirModuleGetOperation(module)));
  // CHECK: bcast.add %{{.*}}, %{{.*}} : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");
  mlirModuleDestroy(module);

  // The verifier's sentence reaches the embedder's diagnostic handler.
  // CHECK: diagnostic: 'bcast.add' op The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0
  // CHECK: bad module is null: 1
  module = mlirModuleCreateParse(
      context,
      mlirStringRefCreateFromCString(
          "func.func @bad(%a: tensor<2xf32>, %b: tensor<3xf32>) {\n"
          "  %r = bcast.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> "
          "tensor<3xf32>\n"
          "  return\n"
          "}\n"));
  printf("bad module is null: %d\n", mlirModuleIsNull(module));
  mlirContextDestroy(context);
}

/* Runs `pipeline` on the kernel and prints the result. */
static void runPipeline(const char *pipeline) {
  MlirContext context = createContext();
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kernel));
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printToStdout, NULL);
  printf("pipeline %s parsed: %d\n", pipeline,
         mlirLogicalResultIsSuccess(parsed));
  if (mlirLogicalResultIsSuccess(parsed)) {
    MlirLogicalResult ran =
        mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
    printf("ran: %d\n", mlirLogicalResultIsSuccess(ran));
    mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
    printf("\n");
  }
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void testPipelines(void) {
  // CHECK-LABEL: testPipelines
  printf("testPipelines\n");
  // CHECK: pipeline builtin.module(bcast-to-linalg) parsed: 1
  // CHECK: ran: 1
  // CHECK-DAG: affine_map<(d0, d1) -> (d0, 0)>
  // CHECK-DAG: affine_map<(d0, d1) -> (d1)>
  // CHECK: linalg.generic
  // CHECK-NOT: bcast.
  // CHECK: arith.addf
  runPipeline("builtin.module(bcast-to-linalg)");
  // CHECK: pipeline builtin.module(bcast-to-llvm{parallel=false}) parsed: 1
  // CHECK: ran: 1
  // CHECK: llvm.func @kernel
  // CHECK-NOT: linalg.
  // CHECK: llvm.fadd
  runPipeline("builtin.module(bcast-to-llvm{parallel=false})");
  // The GPU pipeline up to PTX from a registry that holds only what bcast
  // registers (the fuzz target bcast-fuzz-nvvm found it crashing there:
  // gpu-module-to-binary met #nvvm.target without its serialization model).
  // CHECK: pipeline builtin.module(bcast-to-nvvm) parsed: 1
  // CHECK: ran: 1
  // CHECK: gpu.binary @{{.*}} [#gpu.object<#nvvm.target
  runPipeline("builtin.module(bcast-to-nvvm)");
  // An invalid option or pipeline name is an error, not a crash.
  // CHECK: pipeline builtin.module(bcast-to-llvm{broadcast-policy=bogus}) parsed: 0
  runPipeline("builtin.module(bcast-to-llvm{broadcast-policy=bogus})");
  // CHECK: pipeline builtin.module(bcast-to-nowhere) parsed: 0
  runPipeline("builtin.module(bcast-to-nowhere)");
}

static void testBytecode(void) {
  // CHECK-LABEL: testBytecode
  printf("testBytecode\n");
  MlirContext context = createContext();
  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(kernel));
  Buffer bytecode = {NULL, 0};
  mlirOperationWriteBytecode(mlirModuleGetOperation(module), appendToBuffer,
                             &bytecode);
  // CHECK: magic: 1
  printf("magic: %d\n",
         bytecode.length > 4 && memcmp(bytecode.data, "ML\xefR", 4) == 0);
  MlirModule reread = mlirModuleCreateParse(
      context, (MlirStringRef){bytecode.data, bytecode.length});
  // CHECK: reread: 1 same text: 1
  printf("reread: %d", !mlirModuleIsNull(reread));
  Buffer before = {NULL, 0}, after = {NULL, 0};
  mlirOperationPrint(mlirModuleGetOperation(module), appendToBuffer, &before);
  mlirOperationPrint(mlirModuleGetOperation(reread), appendToBuffer, &after);
  printf(" same text: %d\n",
         before.length == after.length &&
             memcmp(before.data, after.data, before.length) == 0);
  free(before.data);
  free(after.data);

  // Truncated bytecode is a diagnostic, not a crash.
  // CHECK: diagnostic:
  // CHECK: truncated is null: 1
  MlirModule truncated = mlirModuleCreateParse(
      context, (MlirStringRef){bytecode.data, bytecode.length / 2});
  printf("truncated is null: %d\n", mlirModuleIsNull(truncated));
  free(bytecode.data);
  mlirModuleDestroy(reread);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
}

static void printResult(const char *what, BcastBroadcastResult result) {
  printf("%s: ", what);
  if (bcastBroadcastResultSucceeded(result)) {
    intptr_t rank = bcastBroadcastResultGetRank(result);
    const int64_t *shape = bcastBroadcastResultGetShape(result);
    printf("[");
    for (intptr_t i = 0; i < rank; ++i) {
      if (shape[i] == bcastGetDynamicSize())
        printf("%s?", i ? ", " : "");
      else
        printf("%s%lld", i ? ", " : "", (long long)shape[i]);
    }
    printf("]\n");
  } else {
    MlirStringRef message = bcastBroadcastResultGetMessage(result);
    printf("error: %.*s\n", (int)message.length, message.data);
    BcastSizeMismatch mismatch;
    if (bcastBroadcastResultGetMismatch(result, &mismatch))
      printf("mismatch: operands %ld and %ld, sizes %lld and %lld, dim %lld\n",
             (long)mismatch.lhsOperand, (long)mismatch.rhsOperand,
             (long long)mismatch.lhsSize, (long long)mismatch.rhsSize,
             (long long)mismatch.dim);
  }
  bcastBroadcastResultDestroy(result);
}

static void testBroadcastShapes(void) {
  // CHECK-LABEL: testBroadcastShapes
  printf("testBroadcastShapes\n");
  int64_t dyn = bcastGetDynamicSize();
  int64_t a[] = {5, 1, 4, 1}, b[] = {3, 1, 1};
  const int64_t *ab[] = {a, b};
  intptr_t abRanks[] = {4, 3};
  // PyTorch's documented example.
  // CHECK: [5,1,4,1] [3,1,1]: [5, 3, 4, 1]
  printResult("[5,1,4,1] [3,1,1]", bcastBroadcastShapes(2, abRanks, ab));

  int64_t c[] = {dyn, 1}, d[] = {7};
  const int64_t *cd[] = {c, d};
  intptr_t cdRanks[] = {2, 1};
  // CHECK: [?,1] [7]: [?, 7]
  printResult("[?,1] [7]", bcastBroadcastShapes(2, cdRanks, cd));

  // Rank 0 and size 0.
  int64_t e[] = {0, 1};
  const int64_t *re[] = {NULL, e};
  intptr_t reRanks[] = {0, 2};
  // CHECK: [] [0,1]: [0, 1]
  printResult("[] [0,1]", bcastBroadcastShapes(2, reRanks, re));
  // CHECK: no shapes: []
  printResult("no shapes", bcastBroadcastShapes(0, NULL, NULL));

  // The verifier's sentence, for three operands: PyTorch folds the shapes,
  // so `a` is [2, 3], the broadcast of the first two, and `b` the third.
  int64_t f[] = {1, 3}, g[] = {2, 1}, h[] = {2, 4};
  const int64_t *fgh[] = {f, g, h};
  intptr_t fghRanks[] = {2, 2, 2};
  // CHECK: [1,3] [2,1] [2,4]: error: The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1
  // CHECK-NEXT: mismatch: operands 0 and 2, sizes 3 and 4, dim 1
  printResult("[1,3] [2,1] [2,4]", bcastBroadcastShapes(3, fghRanks, fgh));

  // Invalid arguments are reported, not trusted.
  int64_t negative[] = {-3};
  const int64_t *bad[] = {negative};
  intptr_t badRanks[] = {1};
  // CHECK: negative size: error: invalid argument to bcastBroadcastShapes: shape 0 has size -3 at dimension 0
  printResult("negative size", bcastBroadcastShapes(1, badRanks, bad));
  intptr_t negativeRank[] = {-1};
  // CHECK: negative rank: error: invalid argument to bcastBroadcastShapes: shape 0 has negative rank -1
  printResult("negative rank", bcastBroadcastShapes(1, negativeRank, bad));
  const int64_t *missing[] = {NULL};
  // CHECK: missing sizes: error: invalid argument to bcastBroadcastShapes: shape 0 has rank 1 but no sizes
  printResult("missing sizes", bcastBroadcastShapes(1, badRanks, missing));
  // CHECK: null arrays: error: invalid argument to bcastBroadcastShapes: ranks and shapes must not be NULL
  printResult("null arrays", bcastBroadcastShapes(2, NULL, NULL));
  // CHECK: negative count: error: invalid argument to bcastBroadcastShapes: negative number of shapes -2
  printResult("negative count", bcastBroadcastShapes(-2, NULL, NULL));
}

int main(void) {
  testDialectHandle();
  testParseVerifyAndDiagnose();
  testPipelines();
  testBytecode();
  testBroadcastShapes();
  // CHECK: done
  printf("done\n");
  return 0;
}
