"""Runs a tool on prefixes of a file and checks that none crashes.

usage: run-prefixes.py FILE STEP EXPECT TOOL [ARGS...]

Writes the prefixes of FILE of lengths 1, 1 + STEP, 1 + 2 * STEP, ... (and
length - 1) to a scratch file next to FILE and runs TOOL ARGS... on each.
EXPECT is `1` (every prefix must exit with status 1: for bytecode, where no
proper prefix is a complete file) or `0or1` (text, where a prefix that ends
between operations is a valid module). A signal, a hang (60 s) or any other
status fails the check. Prints one line per prefix that misbehaves and a
summary.
"""

import subprocess
import sys


def main():
    path, step, expect = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    tool = sys.argv[4:]
    data = open(path, "rb").read()
    lengths = sorted(set(list(range(1, len(data), step)) + [len(data) - 1]))
    scratch = path + ".prefix"
    bad = 0
    for length in lengths:
        with open(scratch, "wb") as f:
            f.write(data[:length])
        try:
            result = subprocess.run(tool + [scratch], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, timeout=60)
        except subprocess.TimeoutExpired:
            print("prefix %d: timed out" % length)
            bad += 1
            continue
        allowed = (1,) if expect == "1" else (0, 1)
        if result.returncode not in allowed or (
                result.returncode == 1 and b"error" not in result.stderr):
            print("prefix %d: exit status %d: %s" % (
                length, result.returncode, result.stderr[-300:]))
            bad += 1
    print("%d prefixes, %d misbehaved" % (len(lengths), bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
