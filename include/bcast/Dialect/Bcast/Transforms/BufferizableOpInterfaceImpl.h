//===- BufferizableOpInterfaceImpl.h - Bufferizing bcast ops --*- C++ -*-===//
//
// Registers the bufferization models of the ops bcast's lowering leaves in
// tensor IR (bcast.expand_view).
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_DIALECT_BCAST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define BCAST_DIALECT_BCAST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace bcast {

void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace bcast
} // namespace mlir

#endif // BCAST_DIALECT_BCAST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
