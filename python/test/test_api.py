"""API tests of the bcast package: the shape rule and IR access."""

import pytest

import bcast


def test_broadcast_shapes_notes_examples():
    assert bcast.broadcast_shapes((5, 7, 3), (5, 7, 3)) == (5, 7, 3)
    assert bcast.broadcast_shapes((5, 1, 4, 1), (3, 1, 1)) == (5, 3, 4, 1)
    assert bcast.broadcast_shapes((1,), (3, 1, 7)) == (3, 1, 7)
    assert bcast.broadcast_shapes((), (2, 3)) == (2, 3)
    assert bcast.broadcast_shapes((0,), (1,)) == (0,)
    assert bcast.broadcast_shapes((4, 1), (3,), ()) == (4, 3)


def test_broadcast_shapes_error_is_pytorchs_sentence():
    with pytest.raises(ValueError) as e:
        bcast.broadcast_shapes((5, 2, 4, 1), (3, 1, 1))
    assert str(e.value) == ("The size of tensor a (2) must match the size of "
                            "tensor b (3) at non-singleton dimension 1")
    with pytest.raises(ValueError, match=r"tensor a \(0\) must match the size "
                                         r"of tensor b \(2\)"):
        bcast.broadcast_shapes((0,), (2, 2))


def test_broadcast_shapes_dynamic_sizes():
    assert bcast.broadcast_shapes((None, 3), (4, 1)) == (4, 3)
    assert bcast.broadcast_shapes((None,), (1,)) == (None,)
    with pytest.raises(ValueError):
        bcast.broadcast_shapes((-1,), (2,))


def test_check_in_place():
    bcast.check_in_place((5, 3, 4, 1), (3, 1, 1))
    with pytest.raises(ValueError) as e:
        bcast.check_in_place((1, 3, 1), (3, 1, 7))
    assert "output with shape [1, 3, 1] doesn't match the broadcast shape " \
           "[3, 3, 7]" in str(e.value)
    assert "The expanded size of the tensor (1) must match the existing " \
           "size (7) at non-singleton dimension 2" in str(e.value)


def test_check_specify_shape():
    bcast.check_specify_shape((None, None), (None, 1))
    bcast.check_specify_shape((3, None), (3, 1))
    with pytest.raises(ValueError) as e:
        bcast.check_specify_shape((3, None), (1, None))
    assert str(e.value) == ("SpecifyShape: dim 0 of input has shape 3, "
                            "expected 1.")
    with pytest.raises(ValueError, match="2-dimensional and will never "
                                         "match a shape of length 1"):
        bcast.check_specify_shape((None, None), (1,))


GOOD = """
func.func @f(%a: tensor<4x1xf32>, %b: tensor<3xf32>) -> tensor<4x3xf32> {
  %r = bcast.add %a, %b : (tensor<4x1xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
"""

BAD = GOOD.replace("tensor<4x1xf32>", "tensor<4x2xf32>")


def test_module_parse_verify_print():
    module = bcast.Module.parse(GOOD)
    module.verify()
    assert "bcast.add" in str(module)


def test_module_verify_error_carries_the_sentence():
    # Parsing verifies too.
    with pytest.raises(bcast.MLIRError) as e:
        bcast.Module.parse(BAD)
    assert ("The size of tensor a (2) must match the size of tensor b (3) at "
            "non-singleton dimension 1") in str(e.value)


def test_module_parse_error():
    with pytest.raises(bcast.MLIRError):
        bcast.Module.parse("func.func @f( {")


def test_run_pipeline():
    module = bcast.Module.parse(GOOD)
    module.run_pipeline("bcast-to-linalg")
    text = str(module)
    assert "linalg.generic" in text and "bcast.add" not in text
    module.run_pipeline("bcast-to-llvm{parallel=false}")
    assert "llvm.func @f" in str(module)


def test_run_pipeline_errors():
    module = bcast.Module.parse(GOOD)
    with pytest.raises(bcast.MLIRError, match="invalid pass pipeline"):
        module.run_pipeline("no-such-pass")
    with pytest.raises(bcast.MLIRError):
        module.run_pipeline("bcast-to-llvm{broadcast-policy=torch}")
