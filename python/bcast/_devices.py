"""CUDA devices: where the CUDA runtime library is, the device of a PyTorch
tensor, loading the runtime (and probing the driver), and --bcast-to-nvvm's
target for a device.
"""

import os
import sys as _sys

from . import _bcast


def cuda_runtime_path():
    """libbcast_cuda_runtime.so: BCAST_CUDA_RUNTIME, else <root>/lib beside
    <root>/python/bcast (the build tree and an installed prefix alike)."""
    return os.environ.get("BCAST_CUDA_RUNTIME") or os.path.normpath(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "lib", "libbcast_cuda_runtime.so"))


def tensor_device(tensor):
    """"cpu" or "cuda:N" for a tensor bcast takes; TypeError otherwise."""
    device = tensor.device
    if device.type == "cuda":
        return f"cuda:{device.index}"
    if device.type != "cpu":
        raise TypeError("bcast.jit takes CPU and CUDA tensors, not "
                        f"{device.type} tensors")
    return "cpu"


def cuda_ready():
    """Loads the CUDA runtime and probes the driver for a GPU (once it
    succeeds); RuntimeError with the reason otherwise."""
    _bcast.load_cuda_runtime(cuda_runtime_path())


# The PTX ISA version each architecture needs first (PTX ISA notes); older
# architectures take 8.0, which --bcast-to-nvvm targets by default.
_PTX_FOR_SM = {100: 86, 101: 86, 120: 87, 103: 88, 121: 88, 110: 90}


def cuda_target(index):
    """--bcast-to-nvvm's chip and features for CUDA device `index`."""
    major, minor = _sys.modules["torch"].cuda.get_device_capability(index)
    sm = 10 * major + minor
    ptx = 80 if sm <= 90 else _PTX_FOR_SM.get(sm, 90)
    return f"chip=sm_{sm} features=+ptx{ptx}"
