"""CUDA tensors in @bcast.jit. Everywhere: which devices mix, the errors
where bcast's CUDA runtime, a driver or a GPU is missing, the choice of
chip, and the compile path of a CUDA kernel linked against a stand-in
driver (test/GPU/Inputs/fake_libcuda.c: no kernel runs, its calls are
logged). The tests marked `gpu` run the kernels on CUDA tensors and compare
with PyTorch; they run only where a GPU and the CUDA runtime are present."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import bcast
from bcast import _bcast, _devices

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
FAKE_DRIVER = os.path.join(ROOT, "test", "GPU", "Inputs", "fake_libcuda.c")


class _ClaimsCuda(torch.Tensor):
    """A CPU tensor that says it is on cuda:0: what the signature and the
    device checks see, without a GPU (its memory stays on the CPU)."""

    @property
    def device(self):
        return torch.device("cuda", 0)


def claims_cuda(tensor):
    return torch.Tensor._make_subclass(_ClaimsCuda, tensor)


def _has_gpu():
    return torch.cuda.is_available()


@pytest.mark.parametrize("order", ["cuda_first", "cpu_first"])
def test_devices_do_not_mix(order):
    f = bcast.jit(lambda a, b: a + b)
    cuda, cpu = claims_cuda(torch.ones(3)), np.ones(3, np.float32)
    args, names = (((cuda, cpu), "cuda:0 and cpu") if order == "cuda_first"
                   else ((cpu, cuda), "cpu and cuda:0"))
    with pytest.raises(RuntimeError, match="^Expected all tensors to be on "
                       "the same device, but found at least two devices, "
                       f"{names}!$"):
        f(*args)
    assert len(f.cache) == 0


def test_other_devices_are_refused():
    f = bcast.jit(lambda a: a + 1)
    with pytest.raises(TypeError, match="bcast.jit takes CPU and CUDA "
                       "tensors, not meta tensors"):
        f(torch.ones(3, device="meta"))


def test_missing_runtime_library(monkeypatch):
    monkeypatch.setenv("BCAST_CUDA_RUNTIME", "/nonexistent/libbcast_cuda.so")
    with pytest.raises(RuntimeError, match="cannot load bcast's CUDA runtime "
                       "/nonexistent/libbcast_cuda.so"):
        _devices.cuda_ready()


def test_a_library_that_is_not_the_runtime():
    libm = os.path.join("/lib/x86_64-linux-gnu", "libm.so.6")
    if not os.path.exists(libm):
        pytest.skip("no libm.so.6 at the Debian path")
    with pytest.raises(RuntimeError, match="is not bcast's CUDA runtime: it "
                       "lacks bcastCudaProbe"):
        _bcast.load_cuda_runtime(libm)


@pytest.mark.skipif(_has_gpu(), reason="a GPU is present")
def test_device_selection_needs_the_runtime():
    # Nothing loaded the runtime in this process: no driver, no GPU here.
    with pytest.raises(RuntimeError, match="the CUDA runtime is not loaded"):
        _bcast.cuda_use_device(0)


@pytest.mark.skipif(_has_gpu(), reason="a GPU is present")
def test_no_gpu_is_an_error_not_an_exit():
    # In a child with no driver on its search path: the probe reports, the
    # interpreter goes on (the runtime itself would end the process).
    code = textwrap.dedent("""
        import torch, bcast
        x = torch.Tensor._make_subclass(type("C", (torch.Tensor,), {
            "device": property(lambda self: torch.device("cuda", 0))}),
            torch.ones(3))
        try:
            bcast.jit(lambda a: a + 1)(x)
        except RuntimeError as e:
            print("raised:", e)
        print("still running")
    """)
    env = dict(os.environ, LD_LIBRARY_PATH="/nonexistent")
    run = subprocess.run([sys.executable, "-c", code], env=env, text=True,
                         capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert ("raised: bcast: CUDA tensors need a GPU and its driver: "
            in run.stdout), run.stdout
    assert "still running" in run.stdout


@pytest.mark.parametrize("capability,target", [
    ((7, 0), "chip=sm_70 features=+ptx80"),
    ((8, 0), "chip=sm_80 features=+ptx80"),
    ((8, 9), "chip=sm_89 features=+ptx80"),
    ((9, 0), "chip=sm_90 features=+ptx80"),
    ((10, 0), "chip=sm_100 features=+ptx86"),
    ((12, 0), "chip=sm_120 features=+ptx87"),
])
def test_chip_follows_the_device(monkeypatch, capability, target):
    monkeypatch.setattr(torch.cuda, "get_device_capability",
                        lambda index: capability)
    assert _devices.cuda_target(0) == target


def _compiler():
    return shutil.which("clang-22") or shutil.which("cc")


@pytest.mark.skipif(not _compiler(), reason="no C compiler for the stand-in "
                    "driver")
def test_cuda_compile_path_against_a_stand_in_driver(tmp_path):
    """--bcast-to-nvvm, the JIT link against libbcast_cuda_runtime and the
    GPU module's load into the tensor device's primary context, with
    run-time scalars as kernel parameters: all but the kernel's run."""
    subprocess.run([_compiler(), "-shared", "-fPIC", "-O1", FAKE_DRIVER, "-o",
                    str(tmp_path / "libcuda.so.1")], check=True)
    code = textwrap.dedent("""
        import torch, bcast
        from bcast import _devices
        _devices.cuda_target = lambda index: "chip=sm_80 features=+ptx80"
        x = torch.Tensor._make_subclass(type("C", (torch.Tensor,), {
            "device": property(lambda self: torch.device("cuda", 1))}),
            torch.ones(4, 8))
        f = bcast.jit(lambda a, s: (a * s + 1e-05).sum(axis=1, keepdims=True))
        c = f.compile(x, 2.5)
        print("pipeline", c.options.pipeline, "device", c.plan.device)
        print("args", c.plan.args)
        print("libs", [lib.rsplit("/", 1)[-1] for lib in c.libs])
        llvm = c.stage("llvm")
        print("binary", "gpu.binary" in llvm, 'chip = "sm_80"' in llvm)
        f.compile(x, -1.0)
        print("entries", len(f.cache))
    """)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
               FAKE_CUDA_DEVICES="2")
    run = subprocess.run([sys.executable, "-c", code], env=env, text=True,
                         capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines == [
        "pipeline bcast-to-nvvm device 1",
        "args [('buffer', 0), ('scalar', 1)]",
        "libs ['libmlir_c_runner_utils.so', 'libbcast_cuda_runtime.so']",
        "binary True True",
        "entries 1",
    ], run.stdout
    # One GPU module, loaded once, in device 1's context (0xc1).
    log = [line for line in run.stderr.splitlines()
           if line.startswith("fake-cuda: load module")]
    assert len(log) == 1 and log[0].endswith("in context 0xc1"), run.stderr


CALL_PATH = """
import ctypes, os, struct, types
import numpy as np, torch, bcast
from bcast import _devices, _dispatch

C = type("C", (torch.Tensor,), {
    "device": property(lambda self: torch.device("cuda", 0)),
    "is_cpu": property(lambda self: False)})

def claims(t):
    return torch.Tensor._make_subclass(C, t)

# Not on the host (is_cpu, which sends the call path to DLPack), and their
# DLPack capsules say kDLCUDA (DLTensor.device is at byte 8); PyTorch's
# current stream is 0x5eed; new results are such tensors too.
real_to_dlpack = torch.utils.dlpack.to_dlpack
get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
get_pointer.restype = ctypes.c_void_p
get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

def to_dlpack(t):
    capsule = real_to_dlpack(t)
    if isinstance(t, C):
        address = get_pointer(capsule, b"dltensor") + 8
        ctypes.c_int32.from_address(address).value = 2
    return capsule

torch.utils.dlpack.to_dlpack = to_dlpack
torch.cuda.current_stream = lambda device: types.SimpleNamespace(
    cuda_stream=0x5eed)
_devices.cuda_target = lambda index: "chip=sm_90 features=+ptx80"
plain_new = _dispatch.JitFunction._new_tensor
_dispatch.JitFunction._new_tensor = staticmethod(
    lambda shape, dtype, device=-1: claims(plain_new(shape, dtype))
    if device >= 0 else plain_new(shape, dtype))

def last_launch():
    # The last launch's line, its 64-bit parameters, and the copies since
    # the launch before it: {destination: 64-bit words}.
    lines = open(os.environ["FAKE_CUDA_LOG"]).read().splitlines()
    launches = [i for i, l in enumerate(lines) if " launch " in l]
    launch = launches[-1]
    values = [int(v, 16) for v in lines[launch + 1].split()[3:]]
    begin = launches[-2] if len(launches) > 1 else 0
    copies = {}
    for line in lines[begin:launch]:
        if " copy " in line:
            words = line.split()
            copies[int(words[5], 16)] = [int(v, 16) for v in words[9:]]
    return lines[launch], values, copies

def descriptor(values, tensor):
    # allocated, aligned, offset, sizes, strides of a contiguous tensor.
    i = values.index(tensor.data_ptr())
    n = 3 + 2 * tensor.dim()
    strides = [s for s in tensor.stride()]
    assert values[i:i + n] == [tensor.data_ptr()] * 2 + [0] + list(
        tensor.shape) + strides, values
    return i + n

f = bcast.jit(lambda a, s: a * s + 1.0)
x = claims(torch.ones(4, 8))
for scalar in (2.5, -1e-05):
    r = f(x, scalar)
    launch, values, copies = last_launch()
    print(launch.split(": ", 1)[1])
    after_x = descriptor(values, x)
    # The 0-d scalar's aligned pointer: parameter 1's slot of the device
    # buffer the scalars were copied to (on the lent stream).
    words = copies[values[after_x + 1] - 8]
    print("scalar in device memory",
          struct.unpack("<d", struct.pack("<Q", words[1]))[0])
    descriptor(values, r)
    print("result", type(r).__name__, tuple(r.shape), r.dtype)
print("entries", len(f.cache))
out = claims(torch.empty(4, 8))
print("out", f(x, 2.5, out=out) is out)
descriptor(last_launch()[1], out)
for bad in (np.empty((4, 8), np.float32), torch.empty(4, 8)):
    try:
        f(x, 2.5, out=bad)
    except ValueError as e:
        print("error", e)
log = open(os.environ["FAKE_CUDA_LOG"]).read()
print("own streams", log.count("create stream"))
"""


@pytest.mark.skipif(not _compiler(), reason="no C compiler for the stand-in "
                    "driver")
def test_cuda_call_path_against_a_stand_in_driver(tmp_path):
    """The call path with tensors whose DLPack capsules say CUDA: the kernel
    launched on PyTorch's current stream in the device's context, its
    pointers the tensors' own, the run-time scalar in device memory, one
    kernel for two scalar values, results and out= on the device, host
    buffers refused as out=. Nothing computes (the stand-in runs no
    kernel); the values come from a GPU in the tests below."""
    subprocess.run([_compiler(), "-shared", "-fPIC", "-O1", FAKE_DRIVER, "-o",
                    str(tmp_path / "libcuda.so.1")], check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path),
               FAKE_CUDA_LOG=str(tmp_path / "log"))
    run = subprocess.run([sys.executable, "-c", CALL_PATH], env=env,
                         text=True, capture_output=True, timeout=300)
    assert run.returncode == 0, run.stderr
    launch = ("launch kernel_kernel grid 1 block 256 on stream 0x5eed in "
              "context 0xc0")
    assert run.stdout.splitlines() == [
        launch,
        "scalar in device memory 2.5",
        "result C (4, 8) torch.float32",
        launch,
        "scalar in device memory -1e-05",
        "result C (4, 8) torch.float32",
        "entries 1",
        "out True",
        "error out= must be a contiguous float32 tensor on cuda:0 of shape "
        "(4, 8)",
        "error out= must be a contiguous float32 tensor on cuda:0 of shape "
        "(4, 8)",
        "own streams 0",
    ], run.stdout + run.stderr


# --- On a GPU ----------------------------------------------------------------

needs_gpu = pytest.mark.skipif(not _has_gpu(),
                               reason="needs a GPU and the CUDA runtime")

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


def sample(shape, dtype, seed=0, device="cuda"):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        t = torch.rand(shape, generator=g) > 0.5
    elif dtype.is_floating_point:
        t = (torch.rand(shape, generator=g) * 8 - 4).to(dtype)
    else:
        t = torch.randint(0, 9, shape, generator=g).to(dtype)
    return t.to(device)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_gpu_tensors_in_and_out(dtype):
    f = bcast.jit(lambda a, b: bcast.maximum(a, b) | (a == b)
                  if dtype == torch.bool else bcast.maximum(a, b) * a)
    a, b = sample((33, 70), dtype, 1), sample((70,), dtype, 2)
    got = f(a, b)
    want = (torch.maximum(a, b) | (a == b) if dtype == torch.bool
            else torch.maximum(a, b) * a)
    assert got.device == a.device and got.dtype == want.dtype
    assert torch.equal(got, want)


@pytest.mark.gpu
@needs_gpu
def test_gpu_scalars_are_runtime_operands():
    f = bcast.jit(lambda a, s, n: a * s + n)
    a = sample((1000,), torch.float32)
    for s, n in [(2.5, 1), (-1e-05, 7), (float("inf"), -3)]:
        assert torch.equal(f(a, s, n), a * s + n)
    assert len(f.cache) == 1


@pytest.mark.gpu
@needs_gpu
def test_gpu_non_contiguous_and_zero_size():
    f = bcast.jit(lambda a, b: a - b)
    a = sample((64, 48), torch.float32).t()
    b = sample((64,), torch.float32)
    assert torch.equal(f(a, b), a - b)
    e = torch.ones((0, 5), device="cuda")
    assert f(e, e).shape == (0, 5)


@pytest.mark.gpu
@needs_gpu
def test_gpu_in_place_and_out():
    def accumulate(a, b):
        a += b
        return a

    f = bcast.jit(accumulate)
    a, b = sample((8, 300), torch.float32, 1), sample((300,), torch.float32)
    want = a + b
    got = f(a, b)
    assert got is a and torch.equal(a, want)

    g = bcast.jit(lambda x, y: x * y)
    out = torch.empty((8, 300), device="cuda")
    assert g(a, b, out=out) is out and torch.equal(out, a * b)
    with pytest.raises(ValueError, match="out= must be a contiguous float32 "
                       r"tensor on cuda:0 of shape \(8, 300\)"):
        g(a, b, out=torch.empty((8, 300)))
    with pytest.raises(ValueError, match="on cuda:0"):
        g(a, b, out=np.empty((8, 300), np.float32))


@pytest.mark.gpu
@needs_gpu
def test_gpu_runs_on_the_current_stream():
    # Work queued on a side stream before the call must be seen by it: the
    # kernel runs on PyTorch's current stream, behind a long sleep and the
    # fill, not on a stream of its own.
    f = bcast.jit(lambda a, b: a + b)
    a = torch.zeros((1 << 20,), device="cuda")
    b = torch.ones((1 << 20,), device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)
        a.fill_(2)
        got = f(a, b)
    side.synchronize()
    assert torch.equal(got, torch.full_like(a, 3))


@pytest.mark.gpu
@needs_gpu
def test_gpu_reductions_and_dynamic_sizes():
    def softmax(x):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    f = bcast.jit(softmax, dynamic=True)
    for shape in [(17, 1000), (4, 33)]:
        x = sample(shape, torch.float32)
        torch.testing.assert_close(f(x), torch.softmax(x, dim=1))
    assert len(f.cache) == 1


@pytest.mark.gpu
@needs_gpu
def test_gpu_devices_do_not_mix():
    f = bcast.jit(lambda a, b: a + b)
    with pytest.raises(RuntimeError, match="cuda:0 and cpu!"):
        f(torch.ones(3, device="cuda"), torch.ones(3))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.skipif(_has_gpu() and torch.cuda.device_count() < 2,
                    reason="needs two GPUs")
def test_gpu_second_device():
    f = bcast.jit(lambda a, b: a * b)
    a = sample((100,), torch.float32, device="cuda:1")
    got = f(a, a)
    assert got.device == torch.device("cuda", 1)
    assert torch.equal(got, a * a)
