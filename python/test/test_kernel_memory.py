"""The kernels' large temporaries are kept for the next call instead of
being given back to the system (python/src/KernelMemory.cpp): a kernel
called again faults no fresh page in for them."""

import os
import subprocess
import sys

import pytest

# Each case runs in a fresh process (a known heap): two warm-up calls, then
# the page faults over eight calls, each call's result new and dropped by
# the next. With the product's temporary, two large blocks come and go per
# call, which makes glibc trim its heap, and the next call fault the pages
# in again (about 10 us each on a VM). The result is checked against NumPy.
CASE = """
import resource, sys
import numpy as np
import bcast
rng = np.random.default_rng(0)
if sys.argv[1] == "f32":
    # The product (4 MiB, 1024 pages) is a temporary the softmax reads.
    f = bcast.jit(lambda a, b: bcast.softmax(a @ b, -1))
    a = rng.standard_normal((2048, 64), dtype=np.float32)
    b = rng.standard_normal((64, 512), dtype=np.float32) / 8
else:
    # An integer product runs as loops into its own buffer, zero-filled
    # first (LLVM may make that malloc and memset one calloc, which the
    # cache serves too), which the addition reads.
    f = bcast.jit(lambda a, b: (a @ b) + 1)
    a = rng.integers(-3, 4, (512, 32), dtype=np.int32)
    b = rng.integers(-3, 4, (32, 2048), dtype=np.int32)
f(a, b)
f(a, b)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(8):
    out = f(a, b)
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
# Checked after the calls: the reference's arrays would change the heap.
if sys.argv[1] == "f32":
    p = np.exp(a.astype(np.float64) @ b)
    np.testing.assert_allclose(out, p / p.sum(-1, keepdims=True), rtol=1e-5,
                               atol=1e-7)
else:
    np.testing.assert_array_equal(out, a @ b + 1)
print(faults)
"""


def _huge_pages_always():
    """Transparent huge pages for every mapping: a fault then maps 2 MiB,
    and counting faults no longer counts pages."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return "[always]" in f.read()
    except OSError:
        return False


pytestmark = pytest.mark.skipif(
    _huge_pages_always(),
    reason="transparent huge pages: faults are not counted per 4 KiB page")


def _faults(kind, cache):
    env = dict(os.environ)
    if cache is None:
        env.pop("BCAST_KERNEL_MEMORY_CACHE", None)
    else:
        env["BCAST_KERNEL_MEMORY_CACHE"] = str(cache)
    result = subprocess.run([sys.executable, "-c", CASE, kind], env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return int(result.stdout)


@pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                    reason="ASan's allocator keeps freed memory itself")
@pytest.mark.parametrize("kind", ["f32", "i32"])
def test_temporaries_are_not_faulted_in_again(kind):
    kept = _faults(kind, None)
    given_back = _faults(kind, 0)
    # Given back, each call faults most of the temporary's 1024 pages in
    # again; kept, only some of the results' pages come back.
    assert given_back >= 4 * 1024, given_back
    assert kept * 4 < given_back, (kept, given_back)


def test_a_limit_below_the_block_keeps_nothing_and_computes():
    # A block larger than the limit is given back at once (and the
    # results are the same whatever the limit).
    assert _faults("f32", 1 << 20) >= 4 * 1024
