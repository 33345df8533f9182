"""Matrix products in @bcast.jit (issue 29): `a @ b`, `np.matmul(a, b)` and
`bcast.matmul(a, b)` on NumPy arrays and PyTorch tensors, against
torch.matmul and np.matmul: every rank pair, broadcast batch dims on either
side, sizes 0 and 1, integer wrap-around, dynamic sizes, an epilogue in the
same kernel, and the errors (ValueError for shapes, TypeError for dtypes,
with the dialect's sentences)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import bcast

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(29)

PAIRS = [([5], [5]), ([3, 5], [5]), ([5], [5, 4]), ([3, 5], [5, 4]),
         ([2, 3, 5], [5]), ([5], [2, 5, 4]), ([2, 3, 5], [5, 4]),
         ([3, 5], [2, 5, 4]), ([2, 1, 3, 5], [4, 5, 2]),
         ([1, 4, 3, 5], [2, 1, 5, 2]), ([2, 0, 5], [1, 5, 3]),
         ([2, 3, 0], [0, 4]), ([1, 1], [1, 1])]


def sample(shape, dtype):
    if np.issubdtype(dtype, np.floating):
        return RNG.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return RNG.integers(info.min, info.max, shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("lhs,rhs", PAIRS)
@pytest.mark.parametrize("form", ["operator", "numpy", "function"])
def test_every_rank_pair(lhs, rhs, form):
    a, b = sample(lhs, np.float32), sample(rhs, np.float32)
    fn = {"operator": lambda x, y: x @ y,
          "numpy": lambda x, y: np.matmul(x, y),
          "function": lambda x, y: bcast.matmul(x, y)}[form]
    got = bcast.jit(fn)(a, b)
    want = torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert np.shape(got) == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8])
def test_dtypes_wrap_as_torch(dtype):
    a, b = sample([2, 1, 3, 7], dtype), sample([4, 7, 2], dtype)
    got = bcast.jit(lambda x, y: x @ y)(a, b)
    want = torch.matmul(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert got.dtype == want.dtype
    if dtype == np.float64:
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)


def test_torch_tensors_in_and_out():
    a = torch.randn(3, 1, 4, 5)
    b = torch.randn(2, 5, 6)
    got = bcast.jit(lambda x, y: x @ y)(a, b)
    assert isinstance(got, torch.Tensor)
    torch.testing.assert_close(got, torch.matmul(a, b))


def test_bf16():
    a = torch.randn(4, 8).to(torch.bfloat16)
    b = torch.randn(8, 3).to(torch.bfloat16)
    got = bcast.jit(lambda x, y: x @ y)(a, b)
    assert got.dtype == torch.bfloat16
    # Accumulated in f32, rounded once (PyTorch's CPU kernel does the same).
    want = torch.matmul(a.float(), b.float()).to(torch.bfloat16)
    torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2)


def test_linear_bias_gelu():
    x, w = sample([16, 32], np.float32), sample([32, 8], np.float32)
    bias = sample([8], np.float32)
    got = bcast.jit(lambda x, w, b: bcast.gelu(x @ w + b))(x, w, bias)
    want = torch.nn.functional.gelu(torch.from_numpy(x) @ torch.from_numpy(w)
                                    + torch.from_numpy(bias)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dynamic_sizes_broadcast_a_runtime_one():
    f = bcast.jit(lambda x, y: x @ y, dynamic=True)
    for lhs, rhs in [([1, 3, 4], [2, 4, 5]), ([2, 3, 4], [2, 4, 5]),
                     ([2, 3, 4], [1, 4, 5])]:
        a, b = sample(lhs, np.float32), sample(rhs, np.float32)
        np.testing.assert_allclose(f(a, b), np.matmul(a, b), rtol=1e-5,
                                   atol=1e-5)


def test_dynamic_sizes_errors_at_run_time():
    f = bcast.jit(lambda x, y: x @ y, dynamic=True)
    f(sample([2, 3, 4], np.float32), sample([2, 4, 5], np.float32))
    with pytest.raises(ValueError, match=r"The size of tensor a \(3\) must "
                       r"match the size of tensor b \(2\) at non-singleton "
                       r"dimension 0"):
        f(sample([3, 3, 4], np.float32), sample([2, 4, 5], np.float32))
    with pytest.raises(ValueError, match=r"mat1 and mat2 shapes cannot be "
                       r"multiplied \(2x3x4 and 2x5x5\)"):
        f(sample([2, 3, 4], np.float32), sample([2, 5, 5], np.float32))


@pytest.mark.parametrize("lhs,rhs,message", [
    ([3], [4], r"mat1 and mat2 shapes cannot be multiplied \(3 and 4\)"),
    ([5, 2, 3], [4], r"mat1 and mat2 shapes cannot be multiplied "
     r"\(5x2x3 and 4\)"),
    ([3, 2, 3], [4, 3, 6], r"The size of tensor a \(3\) must match the size "
     r"of tensor b \(4\) at non-singleton dimension 0"),
    ([], [3], r"both arguments to matmul need to be at least 1D, but they "
     r"are 0D and 1D"),
])
def test_shape_errors_are_value_errors(lhs, rhs, message):
    with pytest.raises(ValueError, match=message):
        bcast.jit(lambda x, y: x @ y)(np.ones(lhs, np.float32),
                                      np.ones(rhs, np.float32))


@pytest.mark.parametrize("da,db,message", [
    (np.float32, np.float64, "expected scalar type Float but found Double"),
    (np.bool_, np.bool_, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (np.float16, np.float16, "\"addmm_impl_cpu_\" not implemented for "
     "'Half'"),
])
def test_dtype_errors_are_type_errors(da, db, message):
    with pytest.raises(TypeError, match=message):
        bcast.jit(lambda x, y: x @ y)(np.ones([2, 3], da), np.ones([3, 4], db))


def test_python_number_operand_is_a_type_error():
    with pytest.raises(TypeError, match="matmul takes two bcast.Tensors"):
        bcast.jit(lambda x: bcast.matmul(x, 2.0))(np.ones([3], np.float32))


# Products the runtime splits: in blocks of rows under the BLAS's
# small-product limit (BCAST_MATMUL_SMALL_PRODUCT stands in for OpenBLAS's
# on any host), and side by side on the BLAS's threads (each case has
# more than 2^22 multiply-adds, 2^21 for each of 2 threads, and at least
# two calls). OpenBLAS reads its thread count once, hence a process per
# setting.
_SPLIT_CHILD = r"""
import numpy as np
import torch
import bcast

rng = np.random.default_rng(31)
f = bcast.jit(lambda x, y: x @ y)
for lhs, rhs, dtype in [
        # With the limit 200000: 8 calls of 4 blocks of 16 rows.
        ([64, 8, 1, 100], [8, 100, 100], np.float32),
        ([64, 8, 1, 100], [8, 100, 100], np.float64),
        ([1000, 64], [64, 80], np.float32),  # 1 call, 26 blocks of 39
        ([17, 64, 64], [17, 64, 64], np.float32)]:  # 17 calls of 2 blocks
    a = rng.standard_normal(lhs).astype(dtype)
    b = rng.standard_normal(rhs).astype(dtype)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(f(a, b), want, rtol=1e-5, atol=1e-4)
# A transposed rhs: never in blocks, still side by side.
q, k = torch.randn(8, 128, 64), torch.randn(8, 128, 64)
got = bcast.jit(lambda q, k: q @ k.transpose(-1, -2))(q, k)
torch.testing.assert_close(got, (q.double() @ k.double().transpose(-1, -2))
                           .float(), rtol=1e-5, atol=1e-4)
print("ok")
"""


@pytest.mark.parametrize("threads,limit", [("2", "200000"), ("1", "200000"),
                                           ("2", None)])
def test_products_split_in_blocks_and_threads(threads, limit):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads)
    env.pop("BCAST_MATMUL_SMALL_PRODUCT", None)
    if limit:
        env["BCAST_MATMUL_SMALL_PRODUCT"] = limit
    done = subprocess.run([sys.executable, "-c", _SPLIT_CHILD], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


# Products small enough for the runtime's own kernel (AVX-512 or AVX2
# hosts; see bcastMatmulBlasName): every block height below 8 and 6 rows,
# masked columns in either register of a panel, whole registers, k from 1,
# broadcast batch dims and folded rows, against NumPy in f64 and against
# the BLAS calls the kernel replaces (BCAST_MATMUL_SMALL_KERNEL=0), with
# the kernel's AVX-512 and AVX2 builds (=avx2), a process each: the
# setting is read once.
_SMALL_CHILD = r"""
import numpy as np
import bcast

rng = np.random.default_rng(37)
f = bcast.jit(lambda x, y: x @ y)
results = []
for lhs, rhs in [([64, 16, 16], [64, 16, 16]), ([1, 8], [8, 8]),
                 ([7, 3], [3, 9]), ([5, 1], [1, 31]), ([13, 11], [11, 33]),
                 ([3, 6, 20], [20, 24]), ([2, 1, 5, 12], [4, 12, 40]),
                 ([12, 2], [3, 2, 48]), ([9, 4, 30], [9, 30, 17]),
                 ([40, 16], [16, 16]), ([5, 7, 9], [5, 9, 8]),
                 ([3, 11, 6], [6, 32]), ([3, 4, 1, 8], [1, 4, 8, 16])]:
    a = rng.standard_normal(lhs).astype(np.float32)
    b = rng.standard_normal(rhs).astype(np.float32)
    got = f(a, b)
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    results.append(got)
# A transposed rhs read through its permute (the kernel packs each panel
# of b from bt's rows): 24 columns of depth 20 (a result under OpenBLAS's
# small-kernel limit); 33 columns of depth 37 (above it; tails in both);
# a batch; 16 columns (one whole register).
g = bcast.jit(lambda x, y: x @ np.swapaxes(y, -1, -2))
for lhs, bt in [([13, 20], [24, 20]), ([40, 37], [33, 37]),
                ([3, 9, 30], [3, 17, 30]), ([10, 16], [16, 16])]:
    a = rng.standard_normal(lhs).astype(np.float32)
    b = rng.standard_normal(bt).astype(np.float32)
    got = g(a, b)
    want = np.matmul(a.astype(np.float64),
                     np.swapaxes(b, -1, -2).astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    results.append(got)
np.savez(__import__("sys").argv[1], *results)
"""


def test_small_products_on_the_runtimes_kernel(tmp_path):
    saved = {}
    for setting in ("1", "avx2", "0"):
        env = dict(os.environ, BCAST_MATMUL_SMALL_KERNEL=setting)
        path = str(tmp_path / f"small{setting}.npz")
        done = subprocess.run([sys.executable, "-c", _SMALL_CHILD, path],
                              env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        saved[setting] = np.load(path)
    for name in saved["1"].files:
        for setting in ("avx2", "0"):
            np.testing.assert_allclose(saved["1"][name], saved[setting][name],
                                       rtol=1e-5, atol=1e-5)


# With bcast.torch imported (PyTorch's libgomp in the process), the runtime
# runs a product's calls on libgomp's team, a single call split into blocks
# of rows, one per thread (MatmulRuntime.cpp, runParts). OpenBLAS on 2 threads: products of
# one call with rows that split evenly and not, below two blocks' worth, a
# transposed rhs, f64, a broadcast batch of few calls; against NumPy in f64,
# and the count of products the team ran.
_TEAM_CHILD = r"""
import ctypes, os, sys
import numpy as np
import torch
import bcast
if sys.argv[1] == "torch":
    import bcast.torch

blas = ctypes.CDLL("libblas.so.3")
blas.openblas_set_num_threads(2)
runtime = ctypes.CDLL(os.environ["BCAST_TEST_RUNTIME"])
runtime.bcastMatmulTeamProducts.restype = ctypes.c_int64
rng = np.random.default_rng(5)
f = bcast.jit(lambda x, y: x @ y, threads=2)
g = bcast.jit(lambda x, y: x @ np.swapaxes(y, -1, -2), threads=2)
for fn, lhs, rhs, dtype in [
        (f, [3136, 96], [96, 96], np.float32),
        (f, [1001, 64], [64, 300], np.float32),
        (f, [40, 200], [200, 300], np.float32),
        (g, [777, 96], [96, 96], np.float32),
        (f, [513, 128], [128, 129], np.float64),
        (f, [2, 1, 700, 64], [3, 64, 200], np.float32)]:
    a = rng.standard_normal(lhs).astype(dtype)
    b = rng.standard_normal(rhs).astype(dtype)
    got = fn(a, b)
    b64 = b.astype(np.float64)
    want = np.matmul(a.astype(np.float64),
                     np.swapaxes(b64, -1, -2) if fn is g else b64)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
print(runtime.bcastMatmulTeamProducts())
"""


def test_products_on_pytorchs_team():
    pytest.importorskip("torch")
    runtime = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(bcast.__file__))), "..", "lib",
        "libbcast_matmul_runtime.so")
    if not os.path.exists(runtime):
        pytest.skip("no matrix product runtime in this build")
    import ctypes
    try:
        ctypes.CDLL("libblas.so.3").openblas_set_num_threads
    except (OSError, AttributeError):
        pytest.skip("the BLAS is not OpenBLAS: products run on one thread")
    counts = {}
    # bcast.torch asks for the team; plain bcast keeps OpenBLAS's threads
    # and its own; BCAST_MATMUL_TEAM decides over both.
    for name, module, setting in [("torch", "torch", None),
                                  ("plain", "plain", None),
                                  ("off", "torch", "0"), ("on", "plain", "1")]:
        env = dict(os.environ, BCAST_TEST_RUNTIME=runtime)
        env.pop("BCAST_MATMUL_TEAM", None)
        if setting is not None:
            env["BCAST_MATMUL_TEAM"] = setting
        done = subprocess.run([sys.executable, "-c", _TEAM_CHILD, module],
                              env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        counts[name] = int(done.stdout)
    # Every product but the smallest ([40,200] @ [200,300], 2.4 million
    # multiply-adds, one thread's worth) runs on the team.
    assert counts == {"torch": 5, "plain": 0, "off": 0, "on": 5}
