"""The JIT's vector math route (libm, libmvec's AVX2 or AVX-512 functions),
chosen from the host at import or by BCAST_VECTOR_MATH: each route the host
can run gives PyTorch's results within the ULP bounds of docs/Semantics.md,
and an unknown route is refused at import."""

import os
import subprocess
import sys
import textwrap

import pytest

from bcast import _jit

PROGRAM = textwrap.dedent("""
    import numpy as np, torch, bcast
    from bcast import _jit
    print(_jit._VECTOR_MATH)
    rng = np.random.default_rng(0)
    # Rows of 1000: vectors of 16 and of 8 lanes, and scalar tails.
    x = (rng.standard_normal((64, 1000)) * 8).astype(np.float32)
    x[0, :4] = [np.inf, -np.inf, np.nan, -200.0]
    for name, f, ref in [
            ("exp", bcast.jit(np.exp), torch.exp),
            ("tanh", bcast.jit(np.tanh), torch.tanh),
            ("log", bcast.jit(lambda a: np.log(np.abs(a))),
             lambda a: torch.log(torch.abs(a))),
            ("softmax", bcast.jit(lambda a: bcast.softmax(a, -1)),
             lambda a: torch.softmax(a, -1))]:
        # softmax's specials (a row with inf and NaN) are tested elsewhere.
        a = x[1:] if name == "softmax" else x
        got, want = f(a), ref(torch.from_numpy(a)).numpy()
        # 4 ULP in f32 (softmax: PyTorch's f32 kernel, whose exp and sum
        # round differently).
        tol = 16 if name == "softmax" else 4
        close = np.isclose(got, want, rtol=tol * 2.0 ** -23, atol=0,
                           equal_nan=True) | (got == want)
        assert close.all(), (name, a[~close][:4], got[~close][:4],
                             want[~close][:4])
    print("ok")
""")


def host_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


def run(route):
    env = dict(os.environ, BCAST_VECTOR_MATH=route)
    return subprocess.run([sys.executable, "-c", PROGRAM], env=env,
                          capture_output=True, text=True)


ROUTES = [
    ("libm", True),
    ("libmvec", bool(_jit._LIBMVEC) and "avx2" in host_flags()),
    ("libmvec-avx512", bool(_jit._LIBMVEC) and "avx512f" in host_flags()),
]


@pytest.mark.parametrize("route,runs", ROUTES, ids=[r for r, _ in ROUTES])
def test_route_matches_torch(route, runs):
    pytest.importorskip("torch")
    if not runs:
        pytest.skip(f"this host cannot run {route}")
    done = run(route)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [route, "ok"]


def test_default_route_is_the_widest_the_host_runs():
    env = {k: v for k, v in os.environ.items() if k != "BCAST_VECTOR_MATH"}
    done = subprocess.run(
        [sys.executable, "-c", "from bcast import _jit; "
         "print(_jit._VECTOR_MATH)"], env=env, capture_output=True,
        text=True, check=True)
    want = "libm"
    for route, runs in ROUTES[1:]:
        if runs:
            want = route
    assert done.stdout.strip() == want


def test_unknown_route_is_refused():
    done = run("svml")
    assert done.returncode != 0
    assert ("BCAST_VECTOR_MATH must be libm, libmvec or libmvec-avx512, "
            "not 'svml'") in done.stderr
