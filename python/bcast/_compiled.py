"""One compiled signature: the kernel's IR in destination-passing style
(the traced ops between the arguments' buffers and the results'), compiled
with its CompileOptions (or linked from the disk cache), and its plan for
the extension's call path (a _bcast.Plan).
"""

from . import _bcast
from ._dtypes import _CARRIER, _memref_type, _tensor_type
from ._trace import _Reduction


def aliasing(trace):
    """The pairs of array arguments a call checks for shared memory
    (_bcast.Plan.add_alias_check), as (position updated in place, other
    position, action). The kernel reads each argument as it was when the
    call began, which is what the function computes only where the other
    argument is read before the update: then a shared one is read from a
    copy ('copy', or 'operand' where the updating op itself reads it, for
    PyTorch's refusal of a partial overlap); read after it ('read_after')
    or updated in place too ('both_written'), a shared one is refused."""
    readers = {}
    for k, (_, inputs, _) in enumerate(trace.nodes):
        for i in inputs:
            readers.setdefault(i, []).append(k)
    position = trace.argument_positions
    checks = []
    for m, first in sorted(trace.first_write.items()):
        for a, node in enumerate(trace.argument_nodes):
            if a == m:
                continue
            if a in trace.mutated:
                if a > m:
                    checks.append((position[m], position[a],
                                   "both_written"))
                continue
            reads = readers.get(node)
            if not reads:
                continue
            action = "read_after" if max(reads) > first else \
                "operand" if first in reads else "copy"
            checks.append((position[m], position[a], action))
    return checks


class _Compiled:
    """One traced and compiled signature, and its plan for the extension's
    call path (Dispatcher._register)."""

    def __init__(self, trace, outputs, specs, options, single, disk=None,
                 device=None):
        self.trace = trace
        self.outputs = outputs  # list of ("arg", index) or ("new", Tensor)
        self.single = single
        self.specs = specs
        self.options = options  # a CompileOptions
        # device: the CUDA device of CUDA tensor arguments, or None.
        self.device = device
        text = self._kernel_text(outputs)
        self.ir = {"bcast": text}
        self.libs = options.libs
        if options.for_cuda:
            # Linking a cached object would not run the constructor that
            # loads its GPU module: CUDA kernels are compiled per process.
            disk = None
        self.source = "compiled"
        self.kernel = None
        key = None
        if disk is not None:
            key = disk.key(text, options.text, self.libs)
            self.kernel = disk.load(key, self.libs)
            if self.kernel is not None:
                self.source = "disk"
        if self.kernel is None:
            module = self._parse()
            # The input is verified and the pipeline is bcast-opt's, tested
            # with verification: not verifying after each pass saves time.
            module.run_pipeline(options.lowering(), verify_each=False)
            # Linking runs the constructor that loads the GPU module, into
            # the device's context.
            if device is not None:
                _bcast.cuda_use_device(device)
            try:
                self.kernel = _bcast.Kernel(module, self.libs,
                                            keep_object=disk is not None)
            finally:
                if device is not None:
                    _bcast.cuda_use_device(-1)
            if disk is not None:
                disk.store(key, self.kernel)
        self.plan = self._plan()

    def _parse(self):
        # The verifier's diagnostics (PyTorch's sentences) are ValueErrors.
        try:
            module = _bcast.Module.parse(self.ir["bcast"])
            module.verify()
        except _bcast.MLIRError as e:
            raise ValueError(str(e)) from None
        return module

    def stage(self, name):
        """The kernel's IR at a stage: 'bcast' (as traced), 'linalg' (after
        --bcast-to-linalg) or 'llvm' (after --bcast-to-llvm, or
        --bcast-to-nvvm for CUDA tensors), computed when first asked for."""
        if name not in self.ir:
            module = self._parse()
            if name == "linalg":
                module.run_pipeline(self.options.to_linalg())
            else:
                module.run_pipeline(self.options.lowering())
            self.ir[name] = str(module)
        return self.ir[name]

    def _params(self):
        """Kernel parameters in positional order: (position, name, memref
        type, traced node)."""
        trace = self.trace
        params = []
        for i, t in enumerate(trace.arguments):
            params.append((trace.argument_positions[i], f"%m{i}",
                           _memref_type(t.shape, t.dtype),
                           _tensor_type(t.shape, t.dtype),
                           trace.argument_nodes[i],
                           " writable" if i in trace.mutated else ""))
        for k, scalar in enumerate(trace.scalars):
            carrier = _CARRIER[scalar.kind]
            params.append((scalar.position, f"%s{k}",
                           _memref_type((), carrier),
                           _tensor_type((), carrier), scalar._node, ""))
        return sorted(params, key=lambda p: p[0])

    def _kernel_text(self, outputs):
        trace = self.trace
        params, lines = [], []
        for _, name, memref, tensor, node, writable in self._params():
            params.append(f"{name}: {memref}")
            lines.append(f"  {trace.value_names[node]} = "
                         f"bufferization.to_tensor {name} restrict{writable} "
                         f": {memref} to {tensor}")
        lines += trace.lines
        # New results first, arguments updated in place last: a result that
        # is an argument's old value itself (after folding, `x | x` or an
        # identity broadcast_to is `x`) is read from the argument's buffer
        # when it is materialized, so it must be copied out before that
        # buffer is overwritten (found by fuzz/differential.py).
        write_backs = []
        for i, latest in trace.mutated.items():
            arg = trace.arguments[i]
            write_backs.append(
                f"  bufferization.materialize_in_destination "
                f"{trace.value_names[latest._node]} in restrict writable %m{i}"
                f" : ({_tensor_type(arg.shape, arg.dtype)}, "
                f"{_memref_type(arg.shape, arg.dtype)}) -> ()")
        for j, (kind, t) in enumerate(outputs):
            if kind != "new":
                continue
            memref = _memref_type(t.shape, t.dtype)
            params.append(f"%o{j}: {memref}")
            lines.append(
                f"  bufferization.materialize_in_destination "
                f"{trace.value_names[t._node]} in restrict writable %o{j} : "
                f"({_tensor_type(t.shape, t.dtype)}, {memref}) -> ()")
        lines += write_backs
        return (f"func.func @kernel({', '.join(params)}) attributes "
                f"{{llvm.emit_c_interface}} {{\n" + "\n".join(lines) +
                "\n  return\n}\n")

    def _plan(self):
        """The _bcast.Plan that Dispatcher._register takes: how each
        positional argument reaches the kernel, the results, the shape
        nodes (dynamic sizes only) and the positions updated in place."""
        trace = self.trace
        plan = _bcast.Plan()
        param_of = {p[0]: i for i, p in enumerate(self._params())}
        scalar_positions = {s.position for s in trace.scalars}
        for position, spec in enumerate(self.specs):
            if spec[0] == "array":
                plan.add_buffer(param_of[position])
            elif position in scalar_positions:
                plan.add_scalar(param_of[position])
            else:
                plan.add_constant()
        dynamic = any(s is None for t in trace.arguments for s in t.shape)
        for kind, value in self.outputs:
            if kind == "arg":
                plan.return_argument(trace.argument_positions[value])
            elif dynamic:
                plan.return_new_of_node(str(value.dtype), value._node)
            else:
                plan.return_new(str(value.dtype), list(value.shape))
        if dynamic:
            shape = _bcast.Plan.Shape
            for kind, inputs, extra in trace.nodes:
                if kind == "arg":
                    plan.add_shape_node(
                        shape.ARGUMENT,
                        position=trace.argument_positions[extra])
                elif kind in ("const", "scalar"):
                    plan.add_shape_node(shape.ZERO_DIM)
                elif kind == "broadcast_to":
                    plan.add_shape_node(shape.BROADCAST_TO, inputs, extra)
                elif kind == "specify_shape":
                    plan.add_shape_node(shape.SPECIFY_SHAPE, inputs, extra)
                elif kind == "matmul":
                    plan.add_shape_node(shape.MATMUL, inputs)
                elif isinstance(extra, _Reduction):
                    plan.add_shape_node(
                        shape.REDUCE, inputs[:1],
                        extra.codes(kind, trace.node_ranks[inputs[0]]))
                elif extra == "in_place":
                    plan.add_shape_node(shape.IN_PLACE, inputs)
                else:
                    plan.add_shape_node(shape.BROADCAST, inputs)
        plan.single = self.single
        plan.tensor_results = any(spec[0] == "array" and spec[4] != "numpy"
                                  for spec in self.specs)
        plan.device = -1 if self.device is None else self.device
        plan.mutated = [trace.argument_positions[i] for i in trace.mutated]
        self.aliasing = aliasing(trace)
        for written, other, action in self.aliasing:
            plan.add_alias_check(written, other, action)
        return plan
