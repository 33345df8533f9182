"""nn.TransformerEncoder's nested-tensor path (python/bcast/torch/_nested.py):
in eval() without grad, torch 1.13 runs the encoder on a nested tensor when
the padding mask's kept positions are a prefix of every row, which gives
zeros at the padded positions and, when every row ends in padding, a
shorter output. The compiled model must give eager's results and shape for
every mask, the graph for one layout checking it on every call."""

import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("functorch")
import torch.nn as nn  # noqa: E402

import bcast.torch as bt  # noqa: E402
from bcast.torch import _nested  # noqa: E402


def encoder(norm=True, layers=2, heads=2):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(16, heads, 32, dropout=0.0,
                                       batch_first=True)
    final = None
    if norm:
        final = nn.LayerNorm(16)
        # A bias that is not 0: the padded positions come out as the
        # norm's bias, not 0, when the zeros are put in before the norm.
        nn.init.normal_(final.bias)
    return nn.TransformerEncoder(layer, layers, norm=final).eval()


def padding(*rows):
    return torch.tensor(rows, dtype=torch.bool)


def eager_and_compiled(model, compiled, x, padding_mask, **kwargs):
    with warnings.catch_warnings():
        # 1.13's "nested tensors are in prototype stage".
        warnings.simplefilter("ignore", UserWarning)
        expected = model(x, src_key_padding_mask=padding_mask, **kwargs)
        actual = compiled(x, src_key_padding_mask=padding_mask, **kwargs)
    return actual, expected


def same(actual, expected):
    assert actual.shape == expected.shape
    torch.testing.assert_close(actual, expected, rtol=1e-5, atol=1e-5)


def checked(model, *rows, size=5):
    """Eager's and the compiled model's results on a random input of `rows`
    padding mask, checked alike; (actual, expected, compiled, x, mask)."""
    compiled = bt.compile(model, verbose=False)
    x = torch.randn(len(rows), size, 16)
    mask = padding(*rows)
    actual, expected = eager_and_compiled(model, compiled, x, mask)
    same(actual, expected)
    return actual, expected, compiled, x, mask


def no_fallback(compiled, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        report = bt.explain(compiled, *args, **kwargs).to_dict()
    assert report["fallback"] is None, report["fallback"]


@torch.no_grad()
def test_padded_positions_are_eagers_zeros_before_the_norm():
    model = encoder()
    actual, _, compiled, x, mask = checked(model, [0, 0, 0, 1, 1],
                                           [0, 0, 0, 0, 0])
    # The nested path's zeros, normalized: the norm's bias.
    torch.testing.assert_close(actual[0, 3], model.norm.bias)
    no_fallback(compiled, x, src_key_padding_mask=mask)


@torch.no_grad()
def test_output_is_as_short_as_the_longest_row():
    actual, expected, _, _, _ = checked(
        encoder(norm=False), [0, 0, 1, 1, 1, 1], [0, 0, 0, 0, 1, 1],
        [0, 1, 1, 1, 1, 1], size=6)
    assert expected.shape == (3, 4, 16)
    assert (actual[0, 2:] == 0).all() and (actual[2, 1:] == 0).all()


@torch.no_grad()
def test_each_mask_layout_gets_its_graph_and_keeps_it():
    model = encoder()
    compiled = bt.compile(model, verbose=False)
    x = torch.randn(2, 5, 16)
    masks = [padding([0, 0, 0, 1, 1], [0, 0, 1, 1, 1]),  # length 3
             padding([0, 1, 0, 0, 1], [0, 0, 0, 0, 0]),  # not a prefix
             padding([0, 0, 0, 0, 0], [0, 0, 1, 1, 1]),  # length 5
             padding([0, 0, 1, 1, 1], [0, 0, 0, 1, 1])]  # length 3 again
    for mask in masks:
        same(*eager_and_compiled(model, compiled, x, mask))
    # Three layouts, three graphs; the fourth mask reused the first's.
    state = compiled._bcast_compiled
    assert state.recompiles == 2
    for mask in masks:
        same(*eager_and_compiled(model, compiled, x, mask))
    assert state.recompiles == 2


@torch.no_grad()
def test_rows_not_a_prefix_take_the_plain_path():
    model = encoder()
    _, expected, _, _, _ = checked(model, [0, 1, 0, 0, 1], [0, 0, 0, 0, 0])
    assert (expected[0, 1] != model.norm.bias).any()


@torch.no_grad()
def test_float_mask_is_read_as_kept_or_not():
    model = encoder()
    compiled = bt.compile(model, verbose=False)
    x = torch.randn(2, 5, 16)
    mask = torch.zeros(2, 5).masked_fill(
        padding([0, 0, 0, 1, 1], [0, 0, 0, 0, 1]), float("-inf"))
    same(*eager_and_compiled(model, compiled, x, mask))


@torch.no_grad()
def test_unchecked_mask_takes_each_rows_first_positions():
    # mask_check=False: eager nests each row's first sum(row) positions
    # whatever the mask's pattern.
    model = encoder(norm=False)
    model.mask_check = False
    compiled = bt.compile(model, verbose=False)
    x = torch.randn(2, 5, 16)
    mask = padding([0, 0, 1, 0, 1], [0, 0, 0, 1, 1])
    actual, expected = eager_and_compiled(model, compiled, x, mask)
    assert expected.shape == (2, 3, 16)
    same(actual, expected)


@torch.no_grad()
def test_a_row_of_padding_only_is_zeros_not_nan():
    actual, _, _, _, _ = checked(encoder(norm=False), [1, 1, 1, 1],
                                 [0, 0, 0, 1], size=4)
    assert (actual[0] == 0).all()


def test_with_grad_eager_does_not_nest_and_neither_do_we():
    model = encoder()
    compiled = bt.compile(model, verbose=False)
    x = torch.randn(2, 5, 16)
    mask = padding([0, 0, 0, 1, 1], [0, 0, 0, 0, 0])
    actual, expected = eager_and_compiled(model, compiled, x, mask)
    same(actual, expected)
    assert (expected[0, 3] != model.norm.bias).any()
    actual.sum().backward()


@torch.no_grad()
def test_declined_where_eager_declines():
    # Odd heads, a src mask beside the padding mask, or nested tensors
    # disabled: eager's plain path, no zeros.
    x = torch.randn(2, 5, 16)
    mask = padding([0, 0, 0, 1, 1], [0, 0, 0, 0, 0])
    cases = [(encoder(heads=1), {}),
             (encoder(), {"mask": torch.zeros(5, 5)})]
    disabled = encoder()
    disabled.enable_nested_tensor = False
    cases.append((disabled, {}))
    for model, kwargs in cases:
        compiled = bt.compile(model, verbose=False)
        actual, expected = eager_and_compiled(model, compiled, x, mask,
                                              **kwargs)
        same(actual, expected)
        assert (expected[0, 3] != model.norm.bias).any()


class Classifier(nn.Module):
    """A model that makes its own padding mask from token ids (0 pads)
    and averages over all positions, padded ones included: the nested
    path's zeros and length change its output."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.embed = nn.Embedding(10, 16)
        self.encoder = encoder(norm=False)
        self.head = nn.Linear(16, 3)

    def forward(self, tokens):
        hidden = self.encoder(self.embed(tokens),
                              src_key_padding_mask=tokens == 0)
        return self.head(hidden.mean(1))


@torch.no_grad()
def test_mask_made_inside_the_model_is_checked_on_every_call():
    model = Classifier().eval()
    compiled = bt.compile(model, verbose=False)
    batches = [torch.tensor([[3, 4, 5, 0, 0], [1, 2, 0, 0, 0]]),
               torch.tensor([[3, 4, 5, 6, 0], [1, 2, 3, 4, 5]]),
               torch.tensor([[3, 0, 5, 6, 0], [1, 2, 3, 4, 5]]),
               torch.tensor([[7, 4, 5, 0, 0], [1, 2, 9, 0, 0]])]
    for tokens in batches:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            expected = model(tokens)
        same(compiled(tokens), expected)
    no_fallback(compiled, batches[0])


def test_layout_follows_torchs_alignment_check():
    keep = padding([1, 1, 0, 0], [1, 0, 0, 0])
    assert _nested.layout(keep, True) == 2
    keep = padding([1, 0, 1, 0], [1, 1, 1, 1])
    assert _nested.layout(keep, True) == _nested.PLAIN
    assert _nested.layout(keep, False) == 4
    x = torch.zeros(2, 4, 8)
    for rows in ([[1, 1, 0, 0], [1, 0, 0, 0]], [[1, 0, 1, 0], [1, 1, 1, 1]],
                 [[0, 0, 0, 0], [1, 1, 0, 0]], [[1, 1, 1, 1], [0, 1, 1, 1]]):
        keep = padding(*rows)
        aligned = torch._nested_tensor_from_mask_left_aligned(x, keep)
        assert (_nested.layout(keep, True) != _nested.PLAIN) == aligned
