//===- ShardingInterfaceImpl.h - Sharding bcast ops -------------*- C++ -*-===//
//
// Registers upstream's shard::ShardingInterface on the bcast ops, so that
// sharding-propagation and shard-partition handle a bcast program annotated
// with `shard.shard` (docs/Sharding.md).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define BCAST_DIALECT_BCAST_TRANSFORMS_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace bcast {

/// Attaches broadcast-aware sharding models to every bcast op: the
/// element-wise ops (and their in-place twins), `cast`, `broadcast_to`, the
/// reductions, `sum_to_size`, `softmax`, `log_softmax`, `specify_shape`,
/// `expand_view`, `runtime_check` and `matmul`.
void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
