"""@bcast.jit: JitFunction, a Python function compiled per signature. Calls
run in the extension (_bcast.Dispatcher, JitFunction's base class): this
module traces and compiles on a miss (JitFunction._miss), hands the
extension the plan of the compiled signature, and converts the arguments the
extension does not take as they are (JitFunction._slow_call). Compiled
kernels can be kept on disk (cache=True; _cache).
"""

import functools
import struct
import sys as _sys
import threading

import numpy as np

from . import _bcast, _devices
from ._cache import _DiskCache
from ._compiled import _Compiled
from ._dtypes import _ELEMENT, _as_dtype, _check_int64
from ._options import CompileOptions
from ._tensor import Tensor, _NeedsConcreteScalar
from ._trace import _Trace, _identity_index


def _is_tensor(value):
    """Whether `value` is a torch.Tensor (without importing torch)."""
    torch = _sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _extent(x):
    """The bytes an array or tensor spans, (first, past the last), or None
    (empty, or not an array)."""
    if isinstance(x, np.ndarray):
        return np.byte_bounds(x) if x.size else None
    if _is_tensor(x) and x.numel() and x.device.type == "cpu":
        last = sum((size - 1) * stride
                   for size, stride in zip(x.shape, x.stride()))
        return x.data_ptr(), x.data_ptr() + (last + 1) * x.element_size()
    return None


def _dense(t):
    """ATen's is_non_overlapping_and_dense: its elements fill its span."""
    step = 1
    for stride, size in sorted((st, s) for s, st in zip(t.shape, t.stride())
                               if s != 1):
        if stride != step:
            return False
        step *= size
    return True


def _check_shared(checks, args, replaced):
    """The call path's refusals of arguments sharing memory
    (Dispatch.cpp, checkAliasing), on the caller's arrays where the call
    converts one of a pair (a copy shares no memory; reading one is what
    'copy' asks for)."""
    for written, other, action in checks:
        if written not in replaced and other not in replaced:
            continue
        w, o = args[written], args[other]
        a, b = _extent(w), _extent(o)
        if a is None or b is None or not (a[0] < b[1] and b[0] < a[1]):
            continue
        if action in ("read_after", "both_written"):
            _bcast.raise_alias_error(action, written, other)
        if action == "operand" and _is_tensor(o) and _is_tensor(w) and \
                _dense(w) and _dense(o) and \
                (a != b or w.stride() != o.stride()):
            _bcast.raise_alias_error(action, written, other, partial=True)


class JitFunction(_bcast.Dispatcher):
    """A Python function compiled per signature (shapes and dtypes of array
    arguments, kinds of scalar arguments). Calls run in the base class, in
    C++; this class traces and compiles on a miss and converts arguments
    the call path does not take as they are."""

    def __init__(self, fn, policy="numpy", threads=None, dynamic=False,
                 specialize_scalars=False, cache=False, grain_size=None):
        if policy not in ("numpy", "static"):
            raise ValueError("policy must be 'numpy' or 'static'")
        if grain_size is not None and (isinstance(grain_size, bool) or
                                       not isinstance(grain_size, int) or
                                       grain_size < 0):
            raise ValueError("grain_size must be a non-negative integer")
        self.fn = fn
        self.policy = policy
        self.threads = threads
        self.dynamic = dynamic
        self.specialize_scalars = bool(specialize_scalars)
        self.grain_size = grain_size
        self.disk_cache = _DiskCache() if cache else None
        self.cache = {}
        self.lock = threading.RLock()
        # Whether a signature compiled so far updates an argument that may
        # share memory with another (_Compiled.aliasing), and the caller's
        # arguments of the converting call (_slow_call) in progress on
        # this thread, which _miss checks a new signature against.
        self._aliasing = False
        self._converting = threading.local()
        functools.update_wrapper(self, fn)
        self._configure_dispatcher()

    def _configure_dispatcher(self):
        if self.dynamic is True or not self.dynamic:
            dims = []
        else:
            dims = [sorted(spec or ()) for spec in self.dynamic]
        self._configure(self.dynamic is True, dims, self.specialize_scalars)

    def _options(self, device=None):
        """The CompileOptions of a kernel for the host, or for CUDA device
        `device`."""
        if device is not None:
            return CompileOptions(self.policy,
                                  cuda_target=_devices.cuda_target(device),
                                  cuda_runtime=_devices.cuda_runtime_path())
        return CompileOptions(self.policy, self.threads, self.grain_size)

    def _dynamic_dims(self, index, ndim):
        if self.dynamic is True:
            return set(range(ndim))
        if not self.dynamic:
            return set()
        spec = self.dynamic[index] if index < len(self.dynamic) else ()
        return set(spec or ())

    def _specs(self, args):
        """The signature key (f.cache's) and the traced form of arguments
        the call path takes as they are: C-contiguous NumPy arrays and
        tensors, Python scalars; and the CUDA device of CUDA tensors, or
        None."""
        key, specs = [], []
        arrays = 0
        devices = []
        for arg in args:
            if isinstance(arg, (bool, int, float)):
                kind = (bool if isinstance(arg, bool) else
                        int if isinstance(arg, int) else float)
                if kind is int:
                    _check_int64(arg)
                if self.specialize_scalars:
                    value = struct.pack("<d", arg) if kind is float else arg
                    key.append(("scalar", kind.__name__, value))
                else:
                    key.append(("scalar", kind.__name__))
                specs.append(("scalar", kind, kind(arg)))
                continue
            if _is_tensor(arg):
                container, dtype = "torch", _as_dtype(arg.dtype)
                shape = tuple(arg.shape)
                device = _devices.tensor_device(arg)
                if device != "cpu":
                    container = device
            else:
                container, dtype, shape = "numpy", arg.dtype, arg.shape
            device = container if container.startswith("cuda") else "cpu"
            if device not in devices:
                devices.append(device)
            if dtype not in _ELEMENT:
                raise TypeError(f"unsupported dtype {dtype}; bcast supports "
                                f"{sorted(str(d) for d in _ELEMENT)}")
            dims = self._dynamic_dims(arrays, len(shape))
            shape = tuple(None if d in dims else s
                          for d, s in enumerate(shape))
            key.append(("array", shape, str(dtype), container))
            specs.append(("array", arrays, shape, dtype, container))
            arrays += 1
        if len(devices) > 1:
            raise RuntimeError("Expected all tensors to be on the same "
                               "device, but found at least two devices, "
                               f"{devices[0]} and {devices[1]}!")
        if devices and devices[0] != "cpu":
            _devices.cuda_ready()
            return tuple(key), specs, int(devices[0][5:])
        return tuple(key), specs, None

    def _trace(self, specs):
        trace = _Trace(self.policy)
        # PyTorch's warnings (x.T on a tensor that is not 2-D) are for
        # functions called with torch tensors.
        trace.torch_inputs = any(spec[0] == "array" and spec[4] != "numpy"
                                 for spec in specs)
        values = []
        for position, spec in enumerate(specs):
            if spec[0] == "scalar":
                values.append(spec[2] if self.specialize_scalars else
                              trace.scalar_argument(position, spec[1]))
            else:
                values.append(trace.argument(spec[1], spec[2], spec[3],
                                             position))
        result = self.fn(*values)
        single = not isinstance(result, (tuple, list))
        results = [result] if single else list(result)
        if result is None:
            results = []
        outputs = []
        for r in results:
            if not isinstance(r, Tensor):
                raise TypeError(f"a @bcast.jit function must return bcast "
                                f"Tensors, not {type(r).__name__}")
            arg_index = None
            for i, latest in trace.mutated.items():
                if latest is r:
                    arg_index = i
            if arg_index is None:
                arg_index = _identity_index(trace.arguments, r)
            outputs.append(("arg", arg_index) if arg_index is not None
                           else ("new", r))
        return trace, outputs, single

    def _compiled_for(self, args):
        key, specs, device = self._specs(args)
        compiled = self.cache.get(key)
        if compiled is None:
            trace, outputs, single = self._trace(specs)
            compiled = _Compiled(trace, outputs, specs, self._options(device),
                                 single, self.disk_cache, device)
            self.cache[key] = compiled
        return compiled

    def _miss(self, args, signature):
        """Called by the call path for a signature it has no kernel for:
        traces and compiles (or finds it in f.cache or on disk) and
        registers its plan. A function that needs the values of its scalar
        arguments while tracing is switched to specialize_scalars."""
        with self.lock:
            try:
                compiled = self._compiled_for(args)
            except _NeedsConcreteScalar:
                self.specialize_scalars = True
                self.cache.clear()
                self._configure_dispatcher()
                return
            if compiled.aliasing:
                self._aliasing = True
                pending = getattr(self._converting, "call", None)
                if pending is not None:
                    _check_shared(compiled.aliasing, *pending)
            self._register(signature, compiled.kernel, compiled.plan)

    @staticmethod
    def _convert(args):
        """Arguments the call path takes, and {position: (original,
        replacement)} for the ones replaced: NumPy scalars become Python
        numbers, other array-likes NumPy arrays, non-contiguous (or
        misaligned, or byte-swapped) arrays and tensors contiguous copies,
        negated views their values, tensors that require grad their
        detached views."""
        converted, replaced = [], {}
        for position, arg in enumerate(args):
            new = arg
            if isinstance(arg, np.generic):
                new = arg.item()
            elif isinstance(arg, (bool, int, float)):
                pass
            elif _is_tensor(arg):
                if _devices.tensor_device(arg) != "cpu":
                    _devices.cuda_ready()
                if arg.requires_grad:
                    new = arg.detach()
                if new.is_neg():
                    # Its values' negations, as stored (the imaginary part
                    # of a conjugate): the kernel reads values.
                    new = new.resolve_neg()
                if not new.is_contiguous():
                    new = new.contiguous()
            else:
                new = np.asarray(arg)
                if new.dtype not in _ELEMENT and new.dtype.newbyteorder(
                        "=") not in _ELEMENT:
                    raise TypeError(f"unsupported dtype {new.dtype}; bcast "
                                    "supports "
                                    f"{sorted(str(d) for d in _ELEMENT)}")
                if not (new.flags.c_contiguous and new.flags.aligned and
                        new.dtype.isnative):
                    new = np.ascontiguousarray(
                        new, dtype=new.dtype.newbyteorder("="))
            converted.append(new)
            if new is not arg:
                replaced[position] = (arg, new)
        return tuple(converted), replaced

    def _slow_call(self, args, out):
        """Calls with arguments the call path does not take as they are
        (_convert), then copies in-place results back into the caller's
        arrays and tensors."""
        converted, replaced = self._convert(args)
        # The call path checks the arguments it is given, here copies: the
        # caller's own arrays are checked first, for signatures known to
        # need it here, for a new one by _miss.
        pending = (args, replaced) if any(
            isinstance(a, np.ndarray) or _is_tensor(a)
            for a, _ in replaced.values()) else None
        if pending is not None and self._aliasing:
            _check_shared(self.compile(*converted).aliasing, *pending)
        self._converting.call = pending
        try:
            result, mutated = self._fast_call(converted, out)
        finally:
            self._converting.call = None
        for position in mutated:
            original = replaced.get(position, (None,))[0]
            # An expanded (stride-0) tensor written in place: PyTorch's
            # error, raised before the copy back, so it stays unchanged.
            if _is_tensor(original) and _sys.modules[
                    "torch"]._debug_has_internal_overlap(original) == 1:
                raise RuntimeError(
                    "unsupported operation: more than one element of the "
                    "written-to tensor refers to a single memory location. "
                    "Please clone() the tensor before performing the "
                    "operation.")
        for position in mutated:
            if position not in replaced:
                continue
            original, copy = replaced[position]
            if isinstance(original, np.ndarray):
                np.copyto(original, copy)
            elif _is_tensor(original):
                if copy.data_ptr() != original.data_ptr():
                    with _sys.modules["torch"].no_grad():
                        original.copy_(copy)
            else:
                raise TypeError("an argument updated in place must be a "
                                "NumPy array or a PyTorch tensor")

        def caller_object(value):
            for original, copy in replaced.values():
                if value is copy:
                    return original
            return value

        if isinstance(result, tuple):
            return tuple(caller_object(r) for r in result)
        return caller_object(result)

    @staticmethod
    def _new_tensor(shape, dtype, device=-1):
        """A new result tensor (called by the call path), on CUDA device
        `device` unless it is -1."""
        torch = _sys.modules["torch"]
        return torch.empty(shape, dtype=getattr(torch, dtype),
                           device="cpu" if device < 0 else f"cuda:{device}")

    def compile(self, *args):
        """The compiled signature for these arguments (traced and compiled
        on first use)."""
        converted, _ = self._convert(args)
        with self.lock:
            try:
                return self._compiled_for(converted)
            except _NeedsConcreteScalar:
                self.specialize_scalars = True
                self.cache.clear()
                self._configure_dispatcher()
                return self._compiled_for(converted)

    def inspect(self, *args):
        """The IR of the kernel for these arguments at each stage: 'bcast'
        (as traced), 'linalg' (--bcast-to-linalg) and 'llvm'."""
        compiled = self.compile(*args)
        return {name: compiled.stage(name)
                for name in ("bcast", "linalg", "llvm")}


def jit(fn=None, *, policy="numpy", threads=None, dynamic=False,
        specialize_scalars=False, cache=False, grain_size=None):
    """Compiles `fn` to one fused kernel per signature: for the CPU, or
    with --bcast-to-nvvm for CUDA tensors, run on PyTorch's current stream.

    policy: "numpy" (a size that is 1 at run time broadcasts) or "static"
        (only sizes statically 1 broadcast; with dynamic sizes only).
    threads: None (all cores), 1 (single-threaded), or a thread count.
    dynamic: False, True (every size of every array argument is dynamic:
        one kernel serves all sizes), or a sequence with, per array
        argument, the dimensions that are dynamic.
    specialize_scalars: compile the values of Python scalar arguments into
        the kernel (a new value compiles a new kernel); by default they are
        run-time operands.
    cache: keep compiled kernels on disk (BCAST_CACHE_DIR, default
        ~/.cache/bcast), for this and later processes (CPU kernels; those
        for CUDA tensors are compiled once per process).
    grain_size: results of fewer elements run on one thread (default: the
        pipeline's, docs/Benchmarks.md); 0 always uses all threads.
    """
    options = dict(policy=policy, threads=threads, dynamic=dynamic,
                   specialize_scalars=specialize_scalars, cache=cache,
                   grain_size=grain_size)
    if fn is None:
        return lambda f: JitFunction(f, **options)
    return JitFunction(fn, **options)
