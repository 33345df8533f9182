//===- Passes.td - bcast's dialect-independent passes ------*- tablegen -*-===//
//
// The passes of bcast's pipelines that never see a bcast op: they work on
// what the lowering produces (linalg.generic chains on tensors, and once
// bufferized, generics on memrefs) and on the shapes of any IR. Fusion,
// vector loops, the GPU mapping and device allocations, and the check that
// static sizes fit in 64 bits. One file per pass in lib/Transforms, named
// after its flag.
//
//===----------------------------------------------------------------------===//

#ifndef BCAST_TRANSFORMS_PASSES_TD
#define BCAST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BcastCheckStaticSizes : Pass<"bcast-check-static-sizes", "::mlir::ModuleOp"> {
  let summary = "Reject static shapes whose size does not fit in 64 bits";
  let description = [{
    Runs first in `--bcast-to-llvm`. Bufferization and the LLVM lowering
    compute element counts and byte sizes of static shapes in 64-bit
    integers, and upstream passes do not guard against overflow (a
    `tensor<4294967296x4294967296xf32>` would wrap around, or crash a pass).
    This pass reports, with exit status 1, every value whose shaped type
    (tensor, memref or vector) has static sizes whose product, or whose size
    in bytes, does not fit in a signed 64-bit integer:

    ```
    error: cannot lower a value of type 'tensor<4294967296x4294967296xf32>': the product of its sizes does not fit in a signed 64-bit integer
    ```

    Dynamic sizes are not known here (the product of the static ones is
    checked). A static size 0 counts as 1: the value is empty, but its
    buffer's strides are still products of the other sizes.
  }];
}

def BcastMathToLibm : Pass<"bcast-math-to-libm", "::mlir::ModuleOp"> {
  let summary = "Lower the math functions that need the C library to calls";
  let description = [{
    Runs in `--bcast-to-llvm` before `convert-math-to-llvm`, and turns
    `math.expm1`, `math.log1p`, `math.asinh`, `math.acosh`, `math.atanh`,
    `math.erf` and `math.erfc` (scalar or vector) into calls of the C
    library's functions (`expm1f`, `log1p`, ...), one per element. Upstream's
    `convert-math-to-llvm` expands `expm1` and `log1p` into `exp(x) - 1` and
    `log(1 + x)`, which lose every digit near 0 (the reason the functions
    exist), and does not lower the other five; `convert-math-to-libm` on its
    own would take every math op, scalarize vectors that LLVM lowers better,
    and call `rsqrtf`, which the C library does not have. The remaining math
    ops are left to `convert-math-to-llvm`.

    ```mlir
    %y = math.erf %x : f32
    ```
    becomes
    ```mlir
    %y = func.call @erff(%x) : (f32) -> f32
    ```
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::vector::VectorDialect"];
}

def BcastExpandExp : Pass<"bcast-expand-exp"> {
  let summary = "Compute math.exp on f32 vectors inline";
  let description = [{
    Runs in `--bcast-to-llvm` with `vector-math=libmvec` or
    `libmvec-avx512`, before `bcast-math-to-libmvec`. A `math.exp` on a
    vector of f32 becomes arith and math ops: the argument clamped to
    [-104, 89] (beyond, the result is 0 or inf as at the bounds), n =
    round(x / ln 2) by adding 1.5 * 2^23, r = x - n ln 2 with ln 2 in two
    parts, exp(r) by its Taylor polynomial of degree 7 in FMAs, and the
    product with 2^n as two powers of two, so that subnormal results round
    once. NaN propagates; -inf gives +0 and +inf gives +inf.

    Measured over every 97th f32 bit pattern: at most 0.92 ULP from the
    exact value (libmvec's `_ZGVeN16v_expf` states 4). One thread, in
    cache, 16 lanes: 0.24 ns per element against 0.31 for the libmvec call
    it replaces, which also spills the caller's vector registers around
    each call (docs/Benchmarks.md).

    ```mlir
    %y = math.exp %x : vector<16xf32>
    ```
    becomes, in outline,
    ```mlir
    %t = math.fma %c, %log2e, %magic : vector<16xf32>
    ...
    %y = arith.mulf %scaled, %power : vector<16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def BcastExpandErfc : Pass<"bcast-expand-erfc"> {
  let summary = "Compute math.erfc marked afn on f64 vectors inline";
  let description = [{
    Runs in `--bcast-to-llvm` with `vector-math=libmvec-avx512` (and
    `inline-erfc`, on by default), after `bcast-expand-exp` and before
    `bcast-math-to-libmvec`: on the machine measured, bias+GELU took 0.87x
    the time of libmvec's AVX-512 erfc with it, but 1.22-1.27x that of the
    AVX2 call, 4 lanes, which `vector-math=libmvec` therefore keeps
    (docs/Benchmarks.md). f32 gelu reaches it only with `inline-gelu=false`
    (`bcast-expand-gelu` computes it in f32 otherwise); f16 and bf16 gelu
    always. A `math.erfc` on a vector of f64 with the
    `afn` fast-math flag (which `bcast.gelu` on f32, f16 and bf16 puts on
    the erfc it computes in f64, to round the product to f32) becomes arith
    and math ops, with no branch: a = |z| clamped to 27.3 (beyond, erfc is
    0 in f64); erfc(a) = exp(-a^2) P(t) / (1 + 2a), with P a polynomial of
    degree 13 in t = (a - 3) / (a + 3) (the form of Shepherd and
    Laframboise, 1981; coefficients by utils/fit-erfc-coefficients.py); one
    division gives both t and 1 / (1 + 2a); exp(-a^2) inline as `bcast-expand-exp` computes f32 exp (n
    = round(w / ln 2) by adding 1.5 * 2^52, ln 2 in two parts, a Taylor
    polynomial of degree 9, 2^n as two powers of two); erfc(z) = 2 -
    erfc(a) for z < 0. NaN propagates; erfc(+inf) = 0, erfc(-inf) = 2.

    The relative error is at most about 1e-10 (measured 7.7e-11 against
    SciPy's erfc on [-8, 27.2]), a thousandth of an f32 ULP (6e-8) but far
    from f64's: erfc without `afn`, and f64 gelu's, are left to
    `bcast-math-to-libmvec`. f32 gelu through it: within 0.502 ULP of the
    exact value (docs/Benchmarks.md).

    ```mlir
    %y = math.erfc %x fastmath<afn> : vector<8xf64>
    ```
    becomes, in outline,
    ```mlir
    %a = math.absf %x : vector<8xf64>
    ...
    %y = arith.select %negative, %twoMinus, %positive : vector<8xi1>, vector<8xf64>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def BcastExpandGelu : Pass<"bcast-expand-gelu"> {
  let summary = "Compute f32 gelu (erf form) in f32 inline arithmetic";
  let description = [{
    Runs in `--bcast-to-llvm` with `vector-math=libmvec` or
    `libmvec-avx512` (and `inline-gelu`, on by default), before the
    vectorizers. `bcast.gelu` on f32 computes 0.5 x erfc(-x / sqrt(2)) in
    f64 with an `afn` erfc and rounds it once to f32; this pass replaces
    that pattern (`arith.truncf` of `0.5 e * erfc(e * -1/sqrt(2))`, `e` the
    f64 extension of an f32 `x`, on scalars or vectors) by f32 arithmetic
    with no call and no branch, so that a vector holds 16 f32 lanes (AVX-512)
    or 8 (AVX2) instead of 8 or 4 f64 ones.

    E = 0.5 |x| erfc(|x| / sqrt(2)), |x| clamped to 15 for x < 0 and to 6
    otherwise (from 6 on x - E rounds to x, and E would be subnormal above
    13.2, whose arithmetic is microcoded on x86: three times as long);
    gelu(x) is -E for x < 0 and x - E otherwise. E = 0.5 |x| exp(-x^2 / 2)
    P(s) / (1 + 2|x|), with P of degree 10 in s = 2|x| / (|x| + 2.5) with
    f32 coefficients, fitted to (1 + 2x) exp(x^2 / 2) erfc(x / sqrt(2))
    (relative error 5.4e-9, `utils/fit-erfc-coefficients.py --f32`): in
    |x| itself, so that x^2 / 2 is exact as a sum of two floats (|x| / 2
    is exact), whose low part joins the reduced argument of
    `bcast-expand-exp`'s emitter (rounding it would move exp(-x^2 / 2) by
    x^2 / 2 ULPs, 50 at x = 10); in s rather than s - 1, whose grid near
    x = 0 is 2^-24 wide. One division, of (|x| + 2.5)(1 + 2|x|), gives
    both s and 1 / (1 + 2|x|); Horner's last step keeps its rounding, and
    the quotient P / (1 + 2|x|) its residual (two FMAs), both carried into
    the product with |x|; the product with 2^n and the 0.5 is one scaling,
    so that only the final rounding is subnormal (x from -13.2 to -14.4)
    and -0 follows below. gelu(-0) = -0, gelu(+inf) = +inf; gelu(-inf) is
    NaN, as PyTorch's; NaN propagates. About 70 vector operations, one of
    them a division (the form before, in a = |x| / sqrt(2) with a and a^2
    as sums of two floats, took about 95 and two divisions).

    Measured over every 13th f32 of magnitude up to 16: at most 2.68 ULP
    from the exact value (the form before: 2.89; the f64 form: 0.502),
    equal to the f64 value rounded to f32 at 97.1% of the inputs (90.2%);
    `benchmarks/accuracy.py`: at most 2 f32 values from the correctly
    rounded result, 98.6% exact (3 and 95.3%). With the vectorizers'
    `math-interleave` (the pipeline computes 256 bytes of vectors side by
    side), bias+GELU is 1.5-1.7x faster than the form before
    (docs/Benchmarks.md, "GELU"). The expansion's last op carries
    `bcast.inline_math`, so that the vectorizers give the generic
    math-vector-bytes and math-interleave as for a costly math function.
    f16 and bf16 gelu (rounded once from f64 to their type) and f64 gelu
    are left alone.

    ```mlir
    %e = arith.extf %x : f32 to f64
    %a = arith.mulf %e, %cst_minus_inv_sqrt2 : f64
    %h = arith.mulf %e, %cst_half : f64
    %c = math.erfc %a fastmath<afn> : f64
    %p = arith.mulf %h, %c : f64
    %y = arith.truncf %p : f64 to f32
    ```
    becomes, in outline,
    ```mlir
    %m = math.absf %x : f32
    ...
    %y = arith.select %negative, %minusE, %xMinusE : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def BcastMathToLibmvec : Pass<"bcast-math-to-libmvec", "::mlir::ModuleOp"> {
  let summary = "Call glibc's vector math library for vector math ops";
  let description = [{
    Runs in `--bcast-to-llvm` with `vector-math=libmvec`, after the vector
    loops are built and before the other math lowerings. A math function on
    a 1-D vector of f32 or f64 whose size is a multiple of 256 bits becomes
    calls of the AVX2 variant in glibc's libmvec, one per 256 bits
    (`_ZGVdN8v_expf` for 8 f32 lanes, `_ZGVdN4v_exp` for 4 f64 lanes; `vv`
    for the two-operand `powf` and `atan2`), instead of the one scalar libm
    call per lane that LLVM's lowering makes of a vector math intrinsic
    (LLVM's own libmvec table covers only exp, log, sin, cos, tan and pow).
    The functions: exp, exp2, expm1, log, log2, log10, log1p, sin, cos, tan,
    asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, erf, erfc,
    powf, atan2. libmvec states at most 4 ULP for them;
    `benchmarks/accuracy.py` measures bcast's functions through it. In
    `--bcast-to-llvm`, `bcast-expand-exp` has already computed `exp` of f32
    vectors inline.

    With `avx512` (`vector-math=libmvec-avx512` in `--bcast-to-llvm`), a
    vector of a multiple of 512 bits calls the AVX-512 variants instead,
    one per 512 bits (`_ZGVeN16v_expf`, `_ZGVeN8v_exp`); other vectors keep
    the AVX2 ones. On the machine measured an AVX-512 call computes twice
    the lanes of an AVX2 one in much less than twice the time (exp: 0.36
    against 0.46 ns per element, docs/Benchmarks.md).

    The program then needs a CPU with AVX2 (with `avx512`, AVX-512F) and
    `libmvec.so.1` at run time (`-lmvec`), which is why the option is off by
    default. Scalar math ops and other vector shapes are left to
    `bcast-math-to-libm` and `convert-math-to-llvm`.

    ```mlir
    %y = math.tanh %x : vector<8xf32>
    ```
    becomes
    ```mlir
    %y = func.call @_ZGVdN8v_tanhf(%x) : (vector<8xf32>) -> vector<8xf32>
    ```
  }];
  let options = [
    Option<"avx512", "avx512", "bool", "false",
           "Call the AVX-512 variants for vectors of a multiple of 512 bits">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::vector::VectorDialect"];
}

def BcastFuseElementwise : Pass<"bcast-fuse-elementwise"> {
  let summary = "Fuse chains of element-wise linalg.generic ops on tensors, "
                "keeping in-place inits";
  let description = [{
    Fuses every element-wise producer `linalg.generic` whose result has a
    single use, as an input of a consumer generic, into that consumer
    (upstream's `fuseElementwiseOps` with the default control of
    `linalg-fuse-elementwise-ops`), so that a chain such as `(a + b) * c - d`
    becomes one loop nest with no intermediate tensors. A matrix product
    (the generic `convert-bcast-to-linalg` makes of a `bcast.matmul`,
    marked `bcast.matmul`) takes no producer: it reads each operand element
    once per row or column of the other, so a fused producer's body would
    run that many times, and `bcast-matmul-to-blas` would no longer find the
    product it hands to the BLAS (a GELU fused into a Linear layer's product
    made it 7x slower: the loops, with an `erfc` per multiply-add).

    A producer with several uses, all of them inputs of generics, is
    recomputed in each (at most four uses, bodies of at most 16 ops), so
    that a written-out LayerNorm keeps no `[M,N]` intermediate. The
    exception is a costly producer (a math function such as `exp`) read by
    a reduction over each row's innermost dimensions and then by an
    element-wise generic of its own shape that writes a new tensor (the
    `exp(x - m)` of a written-out softmax, summed, then divided): that
    consumer writes over the producer's tensor instead (it becomes its
    `outs`), so the exponential is computed once per element, stored in the
    result's buffer and, under `bcast-fuse-rows`, reread from cache, as
    PyTorch's softmax kernel does.

    A producer that its consumer reads along the consumer's innermost loop
    and broadcasts along another loop of more than one iteration is not
    fused unless its body only casts: fused, its body would run once per
    element of the consumer instead of once per element of its own result
    (the per-channel scale `w * rsqrt(var + eps)` of a channels-last
    BatchNorm, once per pixel). It runs once into a small buffer instead. A
    producer invariant along the innermost loop (the same scale in the
    contiguous layout, broadcast along rows) stays fused:
    `bcast-vectorize-elementwise` computes it once per row.

    Unlike `linalg-fuse-elementwise-ops`, it never replaces an `outs`
    operand that the body does not read by a `tensor.empty`: the lowering of
    an in-place op (`bcast.add_`, ...) reads its first operand as an input
    and writes the same tensor as its `outs`, so that one-shot bufferization
    writes the result into that operand's buffer; a new `tensor.empty` there
    would cost an allocation. (Why the lowering reads the in-place operand as
    an input rather than through the output block argument is in
    `convert-bcast-to-linalg`'s description.)

    Consecutive in-place updates of one tensor (`m *= b1; m += t`) fuse too:
    an element-wise generic that reads the result of the generic before it
    and writes over it (its `outs`, which its body does not read), that
    result having no other use, writes into the first one's `outs` instead,
    and the first then fuses into it as a single-use producer.

    With `multiple-results` (on in `--bcast-to-llvm` and `--bcast-to-linalg`,
    off for the GPU, whose mapping takes one result per generic), an
    element-wise producer whose result is also used after its element-wise
    consumer in other ways (a result written to a caller's buffer,
    `materialize_in_destination`) fuses into the consumer all the same, the
    fused generic keeping the producer's result as one more result
    (upstream's `fuseElementwiseOps` keeps it). In-place updates of several
    tensors in one function (an Adam step: `m`, `v`, then `p` from both)
    become one loop nest that reads each input once and writes each output
    once.
  }];
  let options = [
    Option<"multipleResults", "multiple-results", "bool", "false",
           "Fuse a producer whose result has other uses into its "
           "element-wise consumer, keeping the result (generics with "
           "several results)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BcastDropContradictedCasts : Pass<"bcast-drop-contradicted-casts"> {
  let summary = "Replace tensor.cast chains whose static sizes contradict";
  let description = [{
    Runs first in the bufferization stage. A chain of `tensor.cast` ops
    whose first source and last result have static sizes that differ can
    only be reached on a run whose sizes contradict a refinement: the
    always-failing check that `bcast.specify_shape` (or a size known only
    after fusion) put before it exits first, and a `tensor.cast` to a size
    the value does not have is undefined behaviour anyway. Such a chain
    often appears only once fusion or canonicalization has made a `?` size
    static (robustness finding 18):

    ```mlir
    %a = tensor.cast %fused : tensor<4x?xbf16> to tensor<?x?xbf16>
    %b = tensor.cast %a : tensor<?x?xbf16> to tensor<0x?xbf16>
    ```

    Each cast verifies, but after bufferization upstream's `memref.cast`
    folding composes them into `memref<4x?xbf16>` to `memref<0x?xbf16>`,
    which does not. The pass replaces the last cast by a `tensor.empty` of
    its result type (its `?` sizes those of the cast's operand), a value
    that is never read, as the lowering does for a contradicted refinement
    it sees itself (findings 5 and 12).
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def BcastGuardDestinations : Pass<"bcast-guard-destinations"> {
  let summary = "Keep eliminate-empty-tensors from tying an init to a "
                "destination a later read still needs";
  let description = [{
    Runs right before `eliminate-empty-tensors` in the bufferization stage.
    That pass follows a `bufferization.materialize_in_destination` into a
    caller's `restrict writable` memref back to the `tensor.empty` its value
    was computed into, and lets the whole chain live in the caller's buffer.
    One-shot bufferization then never sees the materialization's write as a
    write to that chain: a value of the chain that is read after it, and is
    not the materialized value itself, reads what the materialization
    copied over it (robustness finding 21):

    ```mlir
    %p = linalg.generic ... outs(%empty) // x @ x
    %s = linalg.generic ins(%p) outs(%p) // p.sign_()
    bufferization.materialize_in_destination %s in restrict writable %o0
    bufferization.materialize_in_destination %p in restrict writable %o1
    ```

    Tied to `%o0`, `%p` is overwritten by `%s` before it is copied to `%o1`.
    The chain is what the elimination follows: from the materialized value
    back through equivalent in-place operands to a `tensor.empty`. When a
    value sharing the chain's buffer in place (the chain, and what
    bufferization lets alias it), other than the materialized value, is
    read or written after the materialization, this pass gives the chain's
    first op a `bufferization.alloc_tensor` (same sizes) in place of the
    `tensor.empty`, which the elimination leaves alone: the chain gets its
    own buffer and the materialization becomes a copy. Other ops writing
    into the same (CSE-merged) `tensor.empty` keep it. A use that is not in
    the materialization's block, before it, counts as after.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def BcastUnshareInits : Pass<"bcast-unshare-inits"> {
  let summary = "Give each destination-style op its own filled init tensor";
  let description = [{
    Runs last in `--bcast-to-linalg`, after `cse`. Every reduction's
    accumulator starts as a `linalg.fill` of a `tensor.empty`, and CSE merges
    identical fills (the index accumulators of an `argmax` and an `argmin`,
    the zero sums of a LayerNorm's mean and variance) into one value that
    several ops then read and write as their `outs`. One-shot bufferization
    must then copy the filled buffer for all but one of them, and once
    `eliminate-empty-tensors` has replaced the shared `tensor.empty` by a
    caller's destination buffer, the copies are not enough: the two results
    are materialized into different destinations through one buffer, and
    both destinations receive one reduction's values.

    This pass gives every destination-style use of a tensor `linalg.fill`
    but the first its own clone of the fill, and of its `tensor.empty` when
    the fill writes one, so that each accumulator bufferizes to its own
    buffer, filled in place (a fill is no more work than the copy it
    replaces, and `bcast-fuse-rows` can fuse it into a row loop, which it
    cannot do with a copy):

    ```mlir
    %e = tensor.empty() : tensor<5xi64>
    %f = linalg.fill ins(%c0 : i64) outs(%e : tensor<5xi64>) -> tensor<5xi64>
    %a:2 = linalg.generic ... outs(%v, %f : ...)
    %b:2 = linalg.generic ... outs(%w, %f : ...)
    ```

    becomes

    ```mlir
    %e = tensor.empty() : tensor<5xi64>
    %f = linalg.fill ins(%c0 : i64) outs(%e : tensor<5xi64>) -> tensor<5xi64>
    %e1 = tensor.empty() : tensor<5xi64>
    %f1 = linalg.fill ins(%c0 : i64) outs(%e1 : tensor<5xi64>) -> tensor<5xi64>
    %a:2 = linalg.generic ... outs(%v, %f : ...)
    %b:2 = linalg.generic ... outs(%w, %f1 : ...)
    ```

    Uses as inputs (`ins`) keep sharing the fill: reading one buffer twice
    needs no copy.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def BcastCollapseDims : Pass<"bcast-collapse-dims"> {
  let summary = "Merge the loops of a bufferized broadcast generic that "
                "every operand walks alike";
  let description = [{
    Runs in `--bcast-to-llvm` after `bcast-fuse-rows`, before the
    vectorizers (pipeline option `collapse-dims`, on by default). For a
    `linalg.generic` on memrefs whose indexing maps are broadcast maps (loop
    dims in increasing order, or the constant 0 for a size-1 dim) and whose
    body does not read `linalg.index`, adjacent loops of one iterator type
    merge into one when every operand either reads neither of them or reads
    both at dims contiguous in its memory (only size-1 dims between them;
    identity layouts, or static strides that say so). The generic becomes
    one on `memref.collapse_shape` views of its operands, the size-1 dims
    read at index 0 folded into a neighbouring dim:

    ```mlir
    linalg.generic {indexing_maps = [(d0, d1, d2, d3) -> (d0, d1, d2, d3),
                                     (d0, d1, d2, d3) -> (d1, 0, 0), ...]}
        ins(%x, %mean : memref<1x672x14x14xf32>, memref<672x1x1xf32>) ...
    // becomes, on views of types memref<1x672x196xf32> and memref<672xf32>:
    linalg.generic {indexing_maps = [(d0, d1, d2) -> (d0, d1, d2),
                                     (d0, d1, d2) -> (d1), ...]}
    ```

    The vectorizers vectorize the innermost loop and finish it with a
    scalar tail: a BatchNorm over [1,672,14,14] ran 14-element rows, 6 of
    every 14 elements in the tail; collapsed, 196-element rows. Reductions
    merge their reduced loops the same way (a mean over [-1,-2]).
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def BcastFuseRows : Pass<"bcast-fuse-rows"> {
  let summary = "One parallel loop over blocks of rows for a chain of "
                "bufferized linalg ops that share their rows";
  let description = [{
    Runs after bufferization, before the vector loops. A run of consecutive
    linalg ops on buffers (`linalg.fill`, `linalg.generic`, ...), at least
    one of them a reduction, becomes one loop over blocks of rows when:

    - every op's loop 0 is parallel, and every buffer an op accesses is
      either indexed by loop 0 as its first dimension (the op works on it
      row by row) or not indexed by loop 0 at all (a weight or a bias,
      broadcast along the rows);
    - every op writes row by row, and a buffer written in the run is only
      ever accessed row by row, through one memref value (no other row's
      work can read what a row writes);
    - the ops have the same number of rows: they share a buffer indexed by
      row, or their row counts are equal static sizes.

    Between the ops only allocations, ops without memory effects and frees
    may appear; the frees move after the loop. Distinct allocations and
    function arguments are taken to be distinct buffers, as one-shot
    bufferization takes them.

    The loop is parallel (`scf.parallel`, with `parallel`) over at most 256
    tasks when the group's widest op has at least `grain-size` elements (as
    `bcast-vectorize-elementwise` decides for one op: static sizes when
    compiling, dynamic ones by one branch around a parallel and a
    sequential version); below it the loop is an `scf.for` marked
    `bcast.sequential_rows`, inside which the vector lowerings do not
    parallelize the members either; a task walks its rows in chunks of about 16384 elements of the
    widest op (at least one row), and applies every op in turn to subviews
    of the chunk's rows. The statistics of a chunk (a keepdim reduction's
    [M,1] result) are computed and applied while the chunk is in the cache,
    so a written-out softmax, LayerNorm or RMSNorm reads its input from
    memory once and writes its output once. The vector lowering of the ops
    inside the loop does not parallelize again. An element-wise op of the
    chunk that reads a buffer no op writes (the chain's input) gets one more
    input, which its body does not read: that buffer's rows of the next
    chunk (the last rows for the last chunk), which
    `bcast-vectorize-elementwise` prefetches while it computes, so that the
    next chunk's first pass (a softmax's maximum) finds its rows in cache
    instead of waiting on memory while the core is idle.

    ```mlir
    linalg.fill ins(%zero : f32) outs(%s : memref<64x1xf32>)
    linalg.generic {... iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<64x1000xf32>) outs(%s : memref<64x1xf32>) {...}
    linalg.generic {... iterator_types = ["parallel", "parallel"]}
        ins(%x, %s : memref<64x1000xf32>, memref<64x1xf32>)
        outs(%y : memref<64x1000xf32>) {...}
    ```
    becomes
    ```mlir
    scf.parallel (%task) = (%c0) to (%c64) step (%block) {
      scf.for %row = %task to %end step %chunk {
        %xs = memref.subview %x[%row, 0] [%n, 1000] [1, 1] : ...
        linalg.fill ... outs(%ss : ...)
        linalg.generic ... ins(%xs : ...) outs(%ss : ...)
        linalg.generic ... ins(%xs, %ss : ...) outs(%ys : ...)
      }
    }
    ```
  }];
  let options = [
    Option<"parallel", "parallel", "bool", "true",
           "Run the blocks of rows in parallel (scf.parallel)">,
    Option<"grainSize", "grain-size", "int64_t",
           "::mlir::bcast::kDefaultGrainSize",
           "With parallel, groups whose widest op has fewer elements than "
           "this stay on one thread (decided at compile time for static "
           "sizes, by one branch at run time for dynamic ones; 0: always "
           "parallel)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastVectorizeElementwise : Pass<"bcast-vectorize-elementwise"> {
  let summary = "Explicit vector loops (and parallel loops) for broadcast "
                "element-wise linalg.generic ops on buffers";
  let description = [{
    Runs after bufferization. Each element-wise `linalg.generic` on memrefs
    whose maps are broadcasts (dimensions in order, dropped, or constant 0)
    becomes explicit loops:

    - The outer dimensions are one loop over rows, all outer dimensions
      counted together (a row's indices are recovered from its number), in
      blocks; with `parallel` the blocks are an `scf.parallel` (lowered to
      OpenMP later), so that a result with a short first dimension, such as
      a batch of 1, still has work for every core. Each block ends with a
      fence when non-temporal stores are used.
    - The innermost (contiguous) dimension is a loop over vectors of
      `vector-bytes` bytes plus a scalar tail. Operands that do not vary
      along it (row broadcasts, scalars) are loaded once per row and splat;
      body operations that depend only on such operands are computed once
      per row, not once per element (broadcast-aware work placement). The
      lanes per vector follow the widest element the loop computes per
      element (the outputs, the inputs that vary along the row and what
      depends on them): a row invariant of a wider type, such as a run-time
      scalar argument carried as f64 and truncated to f32, does not narrow
      an f32 loop. A generic with several outputs (in-place updates fused
      by `bcast-fuse-elementwise`) stores each from the same loop. An
      input the body does not read (`bcast-fuse-rows`' next chunk of rows)
      is prefetched (`memref.prefetch`) at each vector's element, never
      loaded.
    - Operands whose innermost stride is only known at run time (the stride-0
      views of the numpy policy) are loaded as a vector or as a splat,
      chosen per vector by a loop-invariant branch that LLVM unswitches: one
      version of the row loop per such choice, never per element. Strides
      other than 0 and 1 take a scalar loop.
    - Vectors hold `vector-bytes`; `math-vector-bytes` where the body
      computes a costly math function per element; otherwise
      `in-cache-vector-bytes` where the buffers the operands view (each
      counted once, the whole buffer for a view such as `bcast-fuse-rows`'
      chunks) have static sizes and hold at most `in-cache-bytes`
      together: wider vectors gain in the cache, and were measured to lose
      when the loop streams from memory from buffers only 16-byte aligned
      (docs/Benchmarks.md).
    - Where the body computes a costly math function per element, the
      vector loop takes `math-interleave` vectors per iteration, as one
      vector that many times as wide, which LLVM computes in as many
      registers side by side: a long dependent chain per vector (an inline
      `gelu` is about 70 operations deep) then overlaps with the others'
      instead of filling the out-of-order window alone (docs/Benchmarks.md).
      A loop of single vectors takes the rest of the row before the scalar
      tail, so short rows are no slower.
    - Results of at least `nontemporal-threshold` bytes are written with
      non-temporal stores, which skip reading the destination into the cache
      first (not for in-place results, which the loop reads anyway). For
      dynamic sizes the choice is made at run time, by one branch around the
      loop nest.
    - With `parallel`, a result of fewer than `grain-size` elements keeps its
      loop sequential (`scf.for`): starting and joining the OpenMP threads
      costs more than small work gains from them. Static sizes decide at
      compile time; dynamic sizes by one branch around the loop nest, which
      holds the parallel and the sequential version. The default is measured
      on the chain `(a + b) * c - d` (docs/Benchmarks.md).

    Generics it cannot handle (elements of other than 8, 16, 32 or 64 bits,
    such as i1 or i4, which buffers store a byte or more apiece while vectors
    pack their bits; region ops in the body; transposed maps; reductions)
    are left for `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", "32",
           "Bytes per vector (32: AVX2; 64, AVX-512, splits accesses to "
           "buffers that are only 16-byte aligned across cache lines)">,
    Option<"mathVectorBytes", "math-vector-bytes", "int64_t", "0",
           "Bytes per vector of generics whose body computes a costly "
           "math function such as exp per element (0: vector-bytes)">,
    Option<"inCacheVectorBytes", "in-cache-vector-bytes", "int64_t", "0",
           "Bytes per vector of the other generics whose buffers, all of "
           "static size, hold at most in-cache-bytes together "
           "(0: vector-bytes)">,
    Option<"inCacheBytes", "in-cache-bytes", "int64_t",
           "::mlir::bcast::kDefaultInCacheBytes",
           "The most bytes a generic's buffers hold together for "
           "in-cache-vector-bytes">,
    Option<"mathInterleave", "math-interleave", "int64_t", "1",
           "Vectors per iteration of the vector loop of generics whose "
           "body computes a costly math function per element, computed as "
           "one wider vector (1: one)">,
    Option<"parallel", "parallel", "bool", "true",
           "Run the outermost loop in parallel (scf.parallel)">,
    Option<"grainSize", "grain-size", "int64_t",
           "::mlir::bcast::kDefaultGrainSize",
           "With parallel, results of fewer elements than this stay on one "
           "thread (decided at compile time for static sizes, by one branch "
           "at run time for dynamic ones; 0: always parallel)">,
    Option<"nontemporalThreshold", "nontemporal-threshold", "int64_t",
           "0",
           "Use non-temporal stores for results of at least this many bytes "
           "(0: never, the default: regular stores measured as fast or "
           "faster nearly always)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def BcastVectorizeReductions : Pass<"bcast-vectorize-reductions"> {
  let summary = "Explicit vector loops for bufferized reduction "
                "linalg.generic ops, with blocked floating sums";
  let description = [{
    Runs after `bcast-vectorize-elementwise`, before
    `convert-linalg-to-loops`. A `linalg.generic` on memrefs with one
    output, at least one reduction loop, broadcast maps (dimensions in
    order, dropped, or constant 0) and a body of element-wise arith/math
    ops whose yielded value is a combiner (`arith.addf`, `mulf`,
    `maximumf`, `minimumf`, `maxnumf`, `minnumf`, `addi`, `muli`, `maxsi`,
    `minsi`, `maxui`, `minui`, `andi`, `ori`, `xori`) of the accumulator
    (read nowhere else) and a value computed from the inputs becomes
    explicit loops (vectors of `vector-bytes`, `math-vector-bytes` or
    `in-cache-vector-bytes` chosen as by `bcast-vectorize-elementwise`):

    - Row reductions (innermost loop reduced, e.g. `sum(x, dim=-1)`): per
      row, the inputs that do not vary along the row are loaded once and
      the body ops that depend only on them computed once (the `m` of
      `exp(x - m)`); the row is read in vectors of `vector-bytes` bytes into
      four vector accumulators, one per vector of a group of four (so that
      the combiner's latency does not bound a row in cache), which start
      at the combiner's identity and are combined pairwise before the
      remaining vectors; a horizontal `vector.reduction` combines the
      result with the output's value; a scalar loop takes the tail. Rows
      are shared among parallel tasks by their parallel outer dimensions;
      rows that reduce into the same output element (outer reduced
      dimensions) are taken in turn.
    - Outer reductions (innermost loop parallel, e.g. softmax's sum over
      dim 0, `sum_to_size` to `[1,N]`): tasks take chunks of 256 columns
      (and the parallel outer dimensions); the reduced rows are read one
      after another, contiguous vectors across the kept columns. When the
      body has a math function other than the cheap ones (`exp(x - m)`,
      not `abs` or `sqrt`), each vector of a row also prefetches
      (`memref.prefetch`) the same columns of each input that varies with
      the reduced dimensions, 4 rows ahead (the last row near the end):
      the function leaves the core too few loads in flight to cover the
      latency of a row's chunk, a few cache lines at another page.
    - Floating sums (`arith.addf`) are a cascade: a vector accumulator
      adds at most 64 vectors (a row reduction) or rows (an outer
      reduction) before it is added into an accumulator of the next
      level, which adds at most 64 of those; the last level adds blocks of
      64 x 64 vectors or rows. With 8 lanes, a sum of 16M f32 values then
      has no accumulator that adds more than 512 terms, so the rounding
      error grows like that of PyTorch's cascade sum rather than with the
      length. Other combiners are exact or order-independent and take one
      level.
    - Full reductions (a row reduction whose kept extent is 1: no parallel
      outer dimensions, or only ones of size 1, such as `x.sum()` or
      `amax` over all dims) would be one task. With `parallel`, when the
      reduced elements (the reduced outer dims times the row) number at
      least `grain-size`, the flattened reduced range is split instead,
      as PyTorch splits the reduced dimension when the output is small:
      at most 256 chunks of whole vectors, one per task of an
      `scf.parallel`; each task reduces its chunk (by rows of the reduced
      outer dims it touches, with the vector loops and cascade above)
      into an accumulator that starts at the combiner's identity and
      stores it in a stack buffer of partials (`memref.alloca` of 256
      elements at the start of the function). After the parallel loop
      the output's value (the init, combined in exactly once) and the
      partials are combined in task order; a floating sum adds the
      partials in blocks of 16 first, one more level of the cascade, so
      its rounding error still grows like the logarithm of the length.
      max/min keep NaN propagation (`maximumf` in the chunks and the
      combine). Static sizes decide when
      compiling; dynamic ones (a dynamic kept extent that may be 1, a
      dynamic reduced size) by one `scf.if` around the split and the row
      loops. Kept extents from 2 up to the number of threads, and outer
      reductions with few columns, are not split. Elements vectors cannot
      hold (odd integer widths) are taken only for this split, with scalar
      loops in the chunks.
    - Bools: a buffer holds an `i1` per byte (0 or 1) where a vector of
      `i1` packs bits, so a bool input varying along the innermost
      dimension is read as bytes (`llvm.load` of `vector<Nxi8>` through
      the buffer's aligned pointer, then `arith.trunci`); the lanes are as
      many as for i8. A bool result (`any`, `all`) of a row reduction is
      read and written one element at a time, as every row reduction's
      result; that of an outer reduction as byte vectors too (`arith.extui`
      to i8, then `llvm.store`).

    Inside `bcast-fuse-rows`' parallel row blocks the loops stay
    sequential. Generics it does not handle (several outputs, such as
    argmax's value and index; `linalg.index` in the body; elements of
    other than 8, 16, 32 or 64 bits; a strided innermost dimension) are left
    for `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"vectorBytes", "vector-bytes", "int64_t", "32",
           "Bytes per vector">,
    Option<"mathVectorBytes", "math-vector-bytes", "int64_t", "0",
           "Bytes per vector of generics whose body computes a costly "
           "math function such as exp per element (0: vector-bytes)">,
    Option<"inCacheVectorBytes", "in-cache-vector-bytes", "int64_t", "0",
           "Bytes per vector of the other generics whose buffers, all of "
           "static size, hold at most in-cache-bytes together "
           "(0: vector-bytes)">,
    Option<"inCacheBytes", "in-cache-bytes", "int64_t",
           "::mlir::bcast::kDefaultInCacheBytes",
           "The most bytes a generic's buffers hold together for "
           "in-cache-vector-bytes">,
    Option<"parallel", "parallel", "bool", "true",
           "Share the rows or columns among parallel tasks (scf.parallel)">,
    Option<"grainSize", "grain-size", "int64_t",
           "::mlir::bcast::kDefaultGrainSize",
           "With parallel, full reductions of fewer elements than this stay "
           "on one thread (static sizes decide when compiling, a branch at "
           "run time for dynamic ones; 0: always split)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def BcastMapElementwiseToGPU : Pass<"bcast-map-elementwise-to-gpu"> {
  let summary = "Turn bufferized element-wise broadcast generics into "
                "gpu.launch ops with coalesced indexing";
  let description = [{
    Each element-wise `linalg.generic` on memrefs (all loops parallel, the
    output indexed by the identity, inputs by broadcast maps) becomes one
    `gpu.launch`. Consecutive threads of a block (thread x) take consecutive
    elements of the innermost, contiguous dimension, so every load and store
    of a warp is coalesced; block x covers the innermost dimension and
    block y walks the rows (all outer dimensions together) with a
    grid-stride loop, so any size is covered whatever the grid limits. When
    the innermost dimension is statically shorter than a block, the whole
    index space is flattened instead (one grid-stride loop over all
    elements), so short rows do not leave threads idle. A fused chain of
    bcast ops is one generic, hence exactly one kernel.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastMapMatmulToGPU : Pass<"bcast-map-matmul-to-gpu"> {
  let summary = "Turn bufferized bcast.matmul products into tiled gpu.launch "
                "ops";
  let description = [{
    Runs before `bcast-map-reductions-to-gpu`. Each product generic of a
    `bcast.matmul` with a matrix on each side (marked `bcast.matmul`: loops
    (batch..., m, k, n)) becomes a `gpu.launch` of blocks of `tile * tile`
    threads, each block computing a `tile x tile` tile of one matrix of the
    result: grid x over column tiles, grid y over row tiles and grid z over
    the flattened batch (both grid-stride loops beyond 65535). Along K, in
    steps of `tile`, the block's threads stage one tile of lhs and one of
    rhs in workgroup memory (`gpu.barrier` before and after use; elements
    beyond the operands' edges are 0), and each thread accumulates its
    element with the product's own body over the tile, in K order: the
    same sums, in the same order, as the loops. A broadcast batch dim is
    read at index 0, so no operand is copied. The result's initial value
    (the zero fill, lowered as an element-wise kernel) is read first, so
    any element type and body (integer wrap-around, bf16 accumulated in
    f32) works. Products with a 1-D operand are left to
    `bcast-map-reductions-to-gpu`. No tensor cores: the tiles go through
    the FMA units.
  }];
  let options = [
    Option<"tile", "tile", "int64_t", /*default=*/"16",
           "Rows and columns of a block's tile (tile * tile threads, at "
           "most 1024)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastMapReductionsToGPU : Pass<"bcast-map-reductions-to-gpu"> {
  let summary = "Turn bufferized reductions and the row groups around them "
                "into gpu.launch ops";
  let description = [{
    Runs before `bcast-map-elementwise-to-gpu`. A row group (the ops
    `bcast-fuse-rows` would put in one row loop on the CPU: a keepdim
    reduction and the ops that use its statistics over the same rows, as in
    a written-out softmax or LayerNorm) with a reduction in it becomes one
    `gpu.launch`: block x takes rows in a grid-stride loop and runs every
    member on the row in turn, with `gpu.barrier` between members, so the
    row is read from memory once and from the cache afterwards, and no
    intermediate buffer the size of the input is written to memory twice.
    Within a member, an element-wise op gives the row's elements to the
    block's threads in turn; a reduction over the innermost dimension gives
    each thread a strided share of the reduced elements (coalesced loads),
    then combines the threads' partials with `gpu.shuffle xor` within each
    warp and the warps' results through workgroup memory, in warp order; a
    reduction that keeps the innermost dimension gives each thread a kept
    element. A reduction outside row groups (over dim 0, `sum_to_size`,
    a full sum) becomes a kernel of its own: when the innermost dimension
    is reduced, a block per kept element; when it is kept, lane l of a
    block's warps takes column `32 * block + l` and warp w the reduced
    rows w, w + warps, ..., combined through workgroup memory. A
    reduction to one element (every kept extent statically 1) of more than
    4 elements per thread of a block, or of a dynamic count, is two
    kernels: up to 2112 blocks each reduce a grid-strided share into a
    partial (a `memref.alloc` freed after the second kernel), then one
    block reduces the partials in block order into the output. The block
    size is rounded up to whole warps. Fills left over become element-wise
    generics. A reduction with two results (argmax, argmin) is an error.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", "256",
           "Threads per block (rounded up to a multiple of 32)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def BcastDeviceAllocations : Pass<"bcast-device-allocations"> {
  let summary = "Allocate the buffers of GPU host functions in device memory";
  let description = [{
    In functions that launch GPU kernels, `memref.alloc`/`memref.dealloc`
    become `gpu.alloc`/`gpu.dealloc`: the buffers bufferization created for
    results and temporaries live where the kernels read and write them.
    Functions without launches are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def BcastMatmulToBLAS : Pass<"bcast-matmul-to-blas", "::mlir::ModuleOp"> {
  let summary = "Call a BLAS for the f32 and f64 matrix products of "
                "bcast.matmul";
  let description = [{
    Runs after bufferization. Each f32 or f64 generic that
    `convert-bcast-to-linalg` made of a `bcast.matmul` (marked
    `bcast.matmul`), still a multiply-add over torch.matmul's maps and
    writing a zero-filled buffer, becomes a call of
    `bcastMatmulF32`/`bcastMatmulF64` (libbcast_matmul_runtime.so) on the
    three memrefs, cast to unranked; the fill is removed (the BLAS
    overwrites the result). An operand whose map reads its dims in another
    order (a `bcast.permute` the lowering read through, such as
    `k.transpose(-1, -2)`) is accepted and handed over as a
    `memref.transpose` view of its buffer, no copy: its strides then choose
    the BLAS's transpose flag. The runtime walks the result's batch space with
    each operand's strides, 0 where a batch dim is broadcast, so a broadcast
    operand is never copied; folds trailing batch dims that the rhs
    broadcasts into M where the strides allow, so that one large GEMM
    replaces many small ones; and calls `cblas_sgemm`/`cblas_dgemm` of the
    BLAS it finds at run time (OpenBLAS through libblas.so.3 where
    installed; without one, plain loops). Integer and bf16 products are
    left to the loops (`bcast-fuse-elementwise` fuses no producer into a
    product, so a product's generic keeps its shape). docs/Pipelines.md
    records the measurements behind the route.

    The element-wise epilogue: when the product's buffer is read only by
    the element-wise generic right after it (a bias, an activation, a
    residual, a scale: what `bcast-fuse-elementwise` made of the product's
    consumers), which writes a buffer of the product's shape and type
    without reading it, the GEMM writes the epilogue's own output and the
    epilogue finishes it there in place: the product's buffer goes (a
    temporary the size of the result, allocated on every call; with an
    output of another static shape or a strided layout it stays). With
    `epilogue-rows`, the product and the epilogue are instead tiled
    together over the result's batch dims (one matrix at a time) and
    blocks of rows: each block's GEMM writes its block of the epilogue's
    output, and the epilogue runs on that block while it is in cache.
    Products whose rhs is broadcast over a batch dim stay whole, so that
    the runtime can still fold that dim into M (one large GEMM instead of
    one per matrix). A block has `epilogue-rows` rows: the BLAS packs the
    rhs again for each call, so a block needs a few hundred rows to
    amortize that. Off by default (0): on the 2-core machine of
    docs/Benchmarks.md it measured no faster on one thread and slower on
    two, where each block's epilogue opens its own parallel region.
  }];
  let options = [
    Option<"epilogueRows", "epilogue-rows", "int64_t", /*default=*/"0",
           "Rows per block when a product is tiled with its element-wise "
           "epilogue (0: no tiling, the whole product is computed into the "
           "epilogue's output and finished there)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

#endif // BCAST_TRANSFORMS_PASSES_TD
