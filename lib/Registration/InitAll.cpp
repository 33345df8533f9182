//===- InitAll.cpp - Register everything bcast provides -------------------===//
//
// Registers the dialect, the passes and the pipelines in one place, so that
// bcast-opt, the C API and downstream tools see the same set. An embedder's
// registry may hold nothing but what this file adds, so it also adds what the
// pipelines rely on: the dialects bcast IR is written in, the upstream passes
// the pipelines are built from (by name, for textual pipelines), and the
// interface models bufferization and deallocation need. Registration is
// idempotent and may be repeated.
//
//===----------------------------------------------------------------------===//

#include "bcast/InitAll.h"
#include "bcast/Conversion/Passes.h"
#include "bcast/Dialect/Bcast/IR/BcastDialect.h"
#include "bcast/Dialect/Bcast/Transforms/BufferizableOpInterfaceImpl.h"
#include "bcast/Dialect/Bcast/Transforms/Passes.h"
#include "bcast/Dialect/Bcast/Transforms/ShardingInterfaceImpl.h"
#include "bcast/Pipelines/Pipelines.h"
#include "bcast/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void bcast::registerBcastDialect(DialectRegistry &registry) {
  // The dialects a module for --bcast-to-llvm may mix with bcast ops
  // (docs/Pipelines.md): a driver function prints results through
  // bufferization and memref ops, vector.print, and so on.
  registry
      .insert<BcastDialect, arith::ArithDialect,
              bufferization::BufferizationDialect, func::FuncDialect,
              linalg::LinalgDialect, math::MathDialect, memref::MemRefDialect,
              scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);

  // What --bcast-to-llvm's bufferization and buffer deallocation ask of the
  // ops the conversion produces (bcast-opt gets the same from
  // registerAllDialects/registerAllExtensions).
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerBufferViewFlowOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  memref::registerBufferViewFlowOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);

  // What a sharded module needs (docs/Sharding.md): the shard dialect its
  // annotations are written in, the sharding models of bcast ops and of the
  // upstream ops that appear beside them in a sharded function (propagation
  // stops at an op without one), and the MPI dialect and its lowering that
  // partitioning produces, chosen by a DLTI entry.
  registry.insert<shard::ShardDialect, mpi::MPIDialect, DLTIDialect>();
  bcast::registerShardingInterfaceExternalModels(registry);
  arith::registerShardingInterfaceExternalModels(registry);
  func::registerShardingInterfaceExternalModels(registry);
  linalg::registerShardingInterfaceExternalModels(registry);
  tensor::registerShardingInterfaceExternalModels(registry);
  mpi::registerConvertMPIToLLVMInterface(registry);

  // What --bcast-to-nvvm asks of the dialects it reaches: convert-to-llvm's
  // patterns for the host code, the serialization of #nvvm.target and the
  // translations to LLVM IR for gpu-module-to-binary. Without them the
  // pipeline left invalid IR (convert-to-llvm) or crashed (a null
  // TargetAttrInterface) in an embedder's registry; bcast-fuzz-nvvm found
  // it (docs/Robustness.md, finding 6).
  // Each translation also inserts its dialect (builtin, gpu, llvm, nvvm).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

/// The upstream passes and pipelines the bcast pipelines are built from
/// (lib/Pipelines), by the groups that declare them: the pipelines create
/// their passes directly, but a user who writes a textual pipeline with them
/// (--pass-pipeline, mlirParsePassPipeline, parsePassPipeline) needs their
/// names.
static void registerUpstreamPassesUsedByPipelines() {
  registerTransformsPasses();     // canonicalize, cse
  registerConversionPasses();     // convert-*-to-llvm, lower-affine, ...
  registerLinalgPasses();         // linalg-fuse-elementwise-ops, ...-to-loops
  memref::registerMemRefPasses(); // expand-strided-metadata
  bufferization::registerBufferizationPasses();    // one-shot-bufferize, ...
  bufferization::registerBufferizationPipelines(); // buffer-deallocation-...
  registerGPUPasses(); // gpu-kernel-outlining, nvvm-attach-target, ...
}

void bcast::registerBcastPassesAndPipelines() {
  registerUpstreamPassesUsedByPipelines();
  registerBcastPasses();
  registerBcastConversionPasses();
  registerBcastTransformsPasses();
  registerBcastPipelines();
}

void bcast::registerAllBcastDialectsAndPasses(DialectRegistry &registry) {
  registerBcastDialect(registry);
  registerBcastPassesAndPipelines();
}
