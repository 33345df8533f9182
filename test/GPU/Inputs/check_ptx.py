#!/usr/bin/env python3
"""Lowers a module with bcast-opt --bcast-to-nvvm, extracts the PTX of every
GPU module and assembles it with ptxas, reporting kernels and spills. With
--lower-only (the sanitizer build, where only bcast-opt is instrumented) it
counts the PTX modules instead of assembling them."""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptxas", required=True)
    parser.add_argument("--arch", default="sm_90")
    parser.add_argument("--lower-only", action="store_true")
    parser.add_argument("module")
    args = parser.parse_args()
    lowered = subprocess.run([shutil.which("bcast-opt"), "--bcast-to-nvvm",
                              args.module], capture_output=True, text=True)
    if lowered.returncode:
        print(lowered.stderr)
        return 1
    assemblies = re.findall(r'assembly = "((?:[^"\\]|\\.)*)"',
                            lowered.stdout)
    if args.lower_only:
        print(f"PTX modules lowered for {args.arch}: {len(assemblies)}")
        return 0
    kernels = spills = 0
    for raw in assemblies:
        ptx = re.sub(r"\\([0-9A-Fa-f]{2})",
                     lambda m: chr(int(m.group(1), 16)), raw)
        with tempfile.NamedTemporaryFile("w", suffix=".ptx") as f:
            f.write(ptx)
            f.flush()
            out = subprocess.run([args.ptxas, f"-arch={args.arch}", "-v",
                                  f.name, "-o", "/dev/null"],
                                 capture_output=True, text=True)
        if out.returncode:
            print(out.stderr)
            return 1
        kernels += len(re.findall(r"Compiling entry function", out.stderr))
        spilled = [name for name, stores in re.findall(
            r"Compiling entry function '(\w+)'.*?(\d+) bytes spill stores",
            out.stderr, re.S) if stores != "0"]
        spills += len(spilled)
        for name in spilled:
            print(f"spills: {name}")
    print(f"assembled {kernels} kernels for {args.arch}, {spills} with spills")
    return 0


if __name__ == "__main__":
    sys.exit(main())
