"""With PyTorch's libgomp in the process, the kernels' parallel loops run on
its team (python/src/KernelThreads.cpp): no thread of another OpenMP
runtime is started, and every loop's iterations are dealt among the team
exactly once (results checked against NumPy, team sizes 2 and 3, loops with
fewer iterations than threads). BCAST_OPENMP=libomp keeps libomp."""

import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

# A fresh process: PyTorch's team started by one of its parallel ops, then
# bcast's kernels, compiled for `threads` threads or loaded from the disk
# cache, each checked against NumPy. Prints the number of threads the
# process had before and after the kernels.
CASE = """
import os, sys
import numpy as np
import torch
import bcast

threads = int(sys.argv[1])
torch.set_num_threads(threads)
x = torch.ones(2048, 2048)
assert float((x * 2).sum()) == 2 * 2048 * 2048


def count():
    return len(os.listdir("/proc/self/task"))


before = count()
rng = np.random.default_rng(0)
cache = sys.argv[2] == "cache"
jit = lambda fn: bcast.jit(fn, threads=threads, cache=cache)
sources = set()

add = jit(lambda a, b: a * 2 + b)
softmax = jit(lambda a, b: bcast.softmax(a + b, -1))
total = jit(lambda a: bcast.sum(a))
rows = jit(lambda a: bcast.mean(a, 1, keepdim=True))
for shape in ((3, 5), (1, 1 << 16), (2, 40000), (513, 1024), (4097, 7)):
    a = rng.standard_normal(shape, dtype=np.float32)
    b = rng.standard_normal(shape[-1:], dtype=np.float32)
    np.testing.assert_array_equal(add(a, b), a * 2 + b)
    e = np.exp((a + b).astype(np.float64))
    np.testing.assert_allclose(softmax(a, b), e / e.sum(-1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(total(a)), a.astype(np.float64).sum(),
                               rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(rows(a), a.astype(np.float64).mean(
        1, keepdims=True), rtol=1e-5, atol=1e-6)
    for fn in (add, softmax, total, rows):
        sources.update(k.source for k in fn.cache.values())
print(before, count(), ",".join(sorted(sources)))
"""


def child(code, *args, **env):
    """Runs `code` in a fresh Python with `env` added to the environment
    (BCAST_OPENMP unset unless given); its stdout, stripped."""
    environ = dict(os.environ)
    environ.pop("BCAST_OPENMP", None)
    environ.update(env)
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)],
                          env=environ, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def run(threads, mode="compile", cache_dir=None, openmp=None):
    env = {}
    if openmp:
        env["BCAST_OPENMP"] = openmp
    if cache_dir:
        env["BCAST_CACHE_DIR"] = str(cache_dir)
    before, after, sources = child(CASE, threads, mode, **env).split()
    return int(before), int(after), sources


@pytest.mark.parametrize("threads", [2, 3])
def test_loops_run_on_pytorchs_team(threads):
    before, after, sources = run(threads)
    assert sources == "compiled"
    assert after == before


def test_libomp_when_told():
    # The same kernels on libomp start its workers: what the test above
    # would see without the team.
    before, after, _ = run(2, openmp="libomp")
    assert after > before


def test_kernels_from_the_disk_cache_run_on_the_team(tmp_path):
    assert run(2, "cache", tmp_path)[2] == "compiled"
    before, after, sources = run(2, "cache", tmp_path)
    assert sources == "disk"
    assert after == before


def test_default_team_is_all_cores_whatever_pytorch_uses():
    # threads=None means all cores (here OMP_NUM_THREADS=3, as libomp
    # reads it), not PyTorch's set_num_threads: libgomp starts the two
    # workers a team of 3 needs.
    code = """
import os
import numpy as np
import torch
import bcast
torch.set_num_threads(1)
count = lambda: len(os.listdir("/proc/self/task"))
before = count()
a = np.random.default_rng(0).standard_normal((64, 1 << 16), np.float32)
np.testing.assert_array_equal(bcast.jit(lambda a: a * 3)(a), a * 3)
print(count() - before)
"""
    assert child(code, OMP_NUM_THREADS="3") == "2"


def test_kernels_called_from_several_python_threads():
    # Each calling thread gets a team of its own from libgomp; kernels
    # release the GIL, so the regions run at the same time.
    code = """
import threading
import numpy as np
import torch
import bcast
torch.set_num_threads(2)
f = bcast.jit(lambda a, b: bcast.softmax(a * 2 + b, -1), threads=2)
rng = np.random.default_rng(1)
a = rng.standard_normal((256, 4096), np.float32)
b = rng.standard_normal(4096, np.float32)
e = np.exp((a * 2 + b).astype(np.float64))
e /= e.sum(-1, keepdims=True)
f(a, b)
errors = []
def work():
    try:
        for _ in range(20):
            np.testing.assert_allclose(f(a, b), e, rtol=1e-5, atol=1e-7)
    except Exception as error:
        errors.append(error)
threads = [threading.Thread(target=work) for _ in range(3)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
print("ok")
"""
    assert child(code) == "ok"


def test_pytorch_imported_after_the_first_kernel():
    # A kernel compiled before libgomp was in the process does not keep
    # later ones off its team.
    code = """
import os
import numpy as np
import bcast
a = np.random.default_rng(2).standard_normal((64, 1 << 16), np.float32)
np.testing.assert_array_equal(bcast.jit(lambda a: a - 1, threads=1)(a),
                              a - 1)
import torch
torch.set_num_threads(2)
assert float((torch.ones(2048, 2048) * 2).sum()) == 2 * 2048 * 2048
count = lambda: len(os.listdir("/proc/self/task"))
before = count()
np.testing.assert_array_equal(bcast.jit(lambda a: a * 3, threads=2)(a),
                              a * 3)
print(count() - before)
"""
    assert child(code) == "0"
