"""@bcast.jit(cache=True): kernels kept on disk under BCAST_CACHE_DIR, found
by a later process without compiling, ignored and rewritten when corrupt or
written by another version."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import bcast
from bcast import _cache

PROGRAM = textwrap.dedent("""
    import numpy as np, bcast
    f = bcast.jit(lambda a, b, c, d: (a + b) * c - d, cache=True)
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b, c = np.arange(3, dtype=np.float32), np.ones((4, 1), np.float32)
    got = f(a, b, c, 2.0)
    assert np.array_equal(got, (a + b) * c - 2.0)
    print(next(iter(f.cache.values())).source)
""")


def run_program(cache_dir):
    env = dict(os.environ, BCAST_CACHE_DIR=str(cache_dir))
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env,
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_hit_across_processes(tmp_path):
    assert run_program(tmp_path) == "compiled"
    files = [p for p in os.listdir(tmp_path) if p.endswith(".bcastobj")]
    assert len(files) == 1
    assert run_program(tmp_path) == "disk"
    assert run_program(tmp_path) == "disk"


def cached_function(monkeypatch, tmp_path):
    monkeypatch.setenv("BCAST_CACHE_DIR", str(tmp_path))
    return bcast.jit(lambda a, s: a * s + 1, cache=True)


def first_source(f):
    return next(iter(f.cache.values())).source


def test_in_process_hit_and_results(monkeypatch, tmp_path):
    a = np.arange(5, dtype=np.float32)
    f = cached_function(monkeypatch, tmp_path)
    np.testing.assert_array_equal(f(a, 3.0), a * 3 + 1)
    assert first_source(f) == "compiled"
    g = cached_function(monkeypatch, tmp_path)
    np.testing.assert_array_equal(g(a, 4.0), a * 4 + 1)
    assert first_source(g) == "disk"


@pytest.mark.parametrize("damage", ["garbage", "truncate", "flip",
                                    "foreign"])
def test_corrupt_file_is_ignored_and_rewritten(monkeypatch, tmp_path,
                                               damage):
    a = np.arange(5, dtype=np.float32)
    cached_function(monkeypatch, tmp_path)(a, 2.0)
    [name] = [p for p in os.listdir(tmp_path) if p.endswith(".bcastobj")]
    path = tmp_path / name
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a kernel at all")
    elif damage == "truncate":
        path.write_bytes(data[:len(data) // 2])
    elif damage == "flip":
        index = len(data) - 100
        path.write_bytes(data[:index] + bytes([data[index] ^ 0xFF]) +
                         data[index + 1:])
    else:
        # Another kernel's valid file under this name: its header's key
        # does not match.
        header, _, payload = data.partition(b"\n")[2].partition(b"\n")
        path.write_bytes(data.replace(header[:20], b'{"key": "0000000000'))
    f = cached_function(monkeypatch, tmp_path)
    np.testing.assert_array_equal(f(a, 5.0), a * 5 + 1)
    assert first_source(f) == "compiled"
    assert path.read_bytes() == data  # rewritten (the same object code)
    g = cached_function(monkeypatch, tmp_path)
    g(a, 1.0)
    assert first_source(g) == "disk"


def test_version_change_misses(monkeypatch, tmp_path):
    a = np.arange(5, dtype=np.float32)
    cached_function(monkeypatch, tmp_path)(a, 2.0)
    monkeypatch.setattr(_cache, "_VERSION", "0.0.0-other")
    f = cached_function(monkeypatch, tmp_path)
    np.testing.assert_array_equal(f(a, 2.0), a * 2 + 1)
    assert first_source(f) == "compiled"
    assert len([p for p in os.listdir(tmp_path)
                if p.endswith(".bcastobj")]) == 2


def test_options_are_part_of_the_key(monkeypatch, tmp_path):
    monkeypatch.setenv("BCAST_CACHE_DIR", str(tmp_path))
    a = np.arange(5, dtype=np.float32)
    bcast.jit(lambda x: x + 1, cache=True)(a)
    f = bcast.jit(lambda x: x + 1, cache=True, threads=1)
    f(a)
    assert first_source(f) == "compiled"


def test_unwritable_cache_directory_is_no_error(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("BCAST_CACHE_DIR", str(blocker / "sub"))
    f = bcast.jit(lambda x: x * 2, cache=True)
    np.testing.assert_array_equal(f(np.ones(2, np.float32)), [2, 2])
