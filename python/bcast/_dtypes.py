"""Dtypes and MLIR text: NumPy's dtypes (and PyTorch's bfloat16) as the
dialect's element types, the tensor and memref types of traced values,
literals (floats, strings) as MLIR parses them, the 64-bit carriers of
Python scalars, and the checks on sizes and integers that come from Python.

Which element types exist comes from the dialect (_bcast.ELEMENT_TYPES);
what an op does with them is the dialect's to say (_trace asks it).
"""

import math
import operator

import numpy as np

from . import _bcast


class _BFloat16:
    """PyTorch's bfloat16, which NumPy has no dtype for: the dtype of traced
    tensors that come from bfloat16 tensors (the attributes the tracer reads
    of a NumPy dtype)."""

    kind = "f"
    itemsize = 2
    name = "bfloat16"

    def __str__(self):
        return "bfloat16"

    __repr__ = __str__


bfloat16 = _BFloat16()


def _as_dtype(dtype):
    """A NumPy dtype, or bfloat16 (also from "bfloat16" and PyTorch's
    dtypes)."""
    if dtype is bfloat16 or (isinstance(dtype, str) and dtype == "bfloat16"):
        return bfloat16
    text = str(dtype)
    if text.startswith("torch."):
        return _as_dtype(text[len("torch."):])
    return np.dtype(dtype)


# NumPy dtype -> MLIR element type, from the dialect (_bcast's
# ELEMENT_TYPES): the dtypes bcast supports. Unsigned arrays are ui8..ui64
# tensors in the traced IR (their ops compute as unsigned); the compiled
# kernel takes them as the signless memrefs of the same width
# (docs/Pipelines.md, the ABI), so their buffers are passed as they are.
_ELEMENT = {_as_dtype(name): element
            for name, element in _bcast.ELEMENT_TYPES.items()}
_DTYPES = {name: _as_dtype(name) for name in _bcast.ELEMENT_TYPES}


def _tensor_type(shape, dtype):
    dims = "".join(("?" if s is None else str(s)) + "x" for s in shape)
    element = _ELEMENT.get(dtype) or _ELEMENT[_as_dtype(dtype)]
    return f"tensor<{dims}{element}>"


def _memref_type(shape, dtype):
    return _tensor_type(shape, dtype).replace("tensor<", "memref<", 1)


def _size(s):
    """A size given from Python: None (`?`) or an int in [0, 2**63); a
    float, a negative size or one beyond int64 is an error (int() would
    truncate 3.5 to 3; issue 17's hostile inputs)."""
    if s is None:
        return None
    s = operator.index(s)  # TypeError for 3.5, as NumPy's and PyTorch's
    if s < 0:
        raise ValueError(f"sizes must be non-negative or None, got {s}")
    if s >= 2**63:
        raise ValueError(f"size {s} does not fit in a signed 64-bit integer")
    return s


def _shape_text(shape):
    return "(" + ", ".join("?" if s is None else str(s) for s in shape) + ")"


# Python's scalar types, in the order of Python's arithmetic promotion, and
# the 64-bit carrier of each in the kernel's signature.
_SCALAR_KINDS = (bool, int, float)
_CARRIER = {bool: np.dtype(np.bool_), int: np.dtype(np.int64),
            float: np.dtype(np.float64)}
_KIND_OF_CARRIER = {dtype: kind for kind, dtype in _CARRIER.items()}


def _float_literal(value, dtype=np.float64):
    """A float in a form MLIR parses as an element of `dtype`: Python's
    repr with a digit after the point (1e-05 -> 1.0e-05, 1e+16 -> 1.0e+16,
    -0.0 as it is), and inf and nan, which MLIR has no words for, as the bit
    patterns of `dtype` (0x7F800000 is f32's inf)."""
    dtype = _as_dtype(dtype)
    value = _round_to(float(value), dtype)
    if math.isfinite(value):
        # Exactly representable in `dtype` now: the literal is exact.
        text = repr(value)
        mantissa, _, exponent = text.partition("e")
        if exponent and "." not in mantissa:
            text = f"{mantissa}.0e{exponent}"
        return text
    if dtype is bfloat16:
        # bfloat16 is the top half of float32; inf and nan are exact there.
        bits = int(np.array(value, np.float32).view(np.uint32)) >> 16
    else:
        bits = int(np.array(value, dtype).view(f"u{dtype.itemsize}"))
    return "0x%0*X" % (2 * dtype.itemsize, bits)


def _string_literal(text):
    """`text` as an MLIR string literal (quotes, backslashes and control
    characters escaped as two hex digits)."""
    escaped = "".join(
        c if c.isprintable() and c not in '"\\' and ord(c) < 128
        else "".join(f"\\{b:02X}" for b in c.encode()) for c in text)
    return f'"{escaped}"'


def _round_to(value, dtype):
    """`value` rounded to the float dtype `dtype` (to nearest even; inf
    beyond its range, as PyTorch converts a scalar), as a Python float."""
    if dtype is bfloat16:
        with np.errstate(over="ignore"):
            bits = int(np.array(value, np.float32).view(np.uint32))
        if (bits & 0x7F800000) != 0x7F800000:  # finite: round the low half
            bits += 0x7FFF + ((bits >> 16) & 1)
        return float(np.array((bits >> 16) << 16, np.uint32).view(np.float32))
    with np.errstate(over="ignore"):
        return float(np.array(value, dtype))


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _check_int64(value):
    """Python integers are int64 scalars (PyTorch's rule): OverflowError
    for one beyond."""
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise OverflowError(f"Python integer {value} does not fit in int64: "
                            "bcast, as PyTorch, takes integer scalars of 64 "
                            "bits")
    return value
