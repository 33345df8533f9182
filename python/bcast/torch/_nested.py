"""nn.TransformerEncoder's nested-tensor path, as captured graphs compute it.

In `eval()`, without grad, with a `src_key_padding_mask` whose kept
positions are a prefix of every row ("left-aligned"), torch 1.13's
TransformerEncoder runs its layers on a nested tensor of the rows' prefixes
and pads the result back with zeros to the longest row: the padded
positions come out 0 (before the encoder's `norm`), and when every row
ends in padding the output is shorter than the input. The capture declines
PyTorch's fused fast paths (they hide the element-wise work), so the
encoder is captured here through its other path, the layers with the
padding mask, and then given the nested path's zeros and length.

The path and the length depend on the mask's values, which a graph cannot
branch on: a graph is made for the layout its capture saw (the nested
path's length, or the plain path), and checks it on every call
(`bcast_torch::nested_layout`, first on the encoder's mask), raising
NestedLayoutChanged with the layout found; the runtime then runs (or
captures) the graph made for that layout.
"""

import contextlib

import torch
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

_LIBRARY = torch.library.Library("bcast_torch", "DEF")
_LIBRARY.define("nested_layout(Tensor padding, int site, bool check, "
                "int layout) -> Tensor")

# The layout of a mask eager does not nest: the layers see it as it is.
PLAIN = -1


class NestedLayoutChanged(Exception):
    """A call's padding mask gives encoder `site` another layout than the
    graph was made for."""

    def __init__(self, site, layout):
        super().__init__(f"TransformerEncoder {site}: layout {layout}")
        self.site, self.layout = site, layout


def _lengths(keep):
    # The nested tensor holds each row's first sum(row) positions (1.13's
    # `_nested_tensor_from_mask`): its kept ones where they are a prefix.
    return keep.sum(1)


def layout(keep, check_alignment):
    """The length eager's nested path pads to, or PLAIN where the mask
    check finds a row whose kept positions are not a prefix (1.13's
    `_nested_tensor_from_mask_left_aligned`)."""
    lengths = _lengths(keep)
    if check_alignment and not bool(
            (keep.int().cumprod(1).sum(1) == lengths).all()):
        return PLAIN
    return int(lengths.max()) if lengths.numel() else 0


def _nested_layout(padding, site, check, expected):
    found = layout(padding.logical_not(), check)
    if found != expected:
        raise NestedLayoutChanged(site, found)
    # A copy the encoder's layers read, so that the check stays in the
    # graph (a node whose result is unused would be dropped).
    return padding.clone()


_LIBRARY.impl("nested_layout", _nested_layout, "CompositeExplicitAutograd")


def _nests(encoder, src, mask, padding):
    """Whether eager's forward takes the nested path, but for the mask's
    alignment: 1.13's checks in TransformerEncoder.forward, in its order."""
    first = encoder.layers[0]
    if not isinstance(first, torch.nn.TransformerEncoderLayer) or \
            first.norm_first or first.training or \
            not first.self_attn.batch_first or \
            not first.self_attn._qkv_same_embed_dim or \
            not first.activation_relu_or_gelu or \
            first.norm1.eps != first.norm2.eps or src.dim() != 3 or \
            not encoder.enable_nested_tensor or padding is None or \
            src.is_nested or mask is not None or \
            first.self_attn.num_heads % 2 == 1 or \
            torch.is_autocast_enabled():
        return False
    attn = first.self_attn
    tensors = (src, attn.in_proj_weight, attn.in_proj_bias,
               attn.out_proj.weight, attn.out_proj.bias, first.norm1.weight,
               first.norm1.bias, first.norm2.weight, first.norm2.bias,
               first.linear1.weight, first.linear1.bias,
               first.linear2.weight, first.linear2.bias)
    if not (src.is_cuda or "cpu" in str(src.device)):
        return False
    return not (torch.is_grad_enabled() and
                any(t.requires_grad for t in tensors))


@contextlib.contextmanager
def emulated():
    """TransformerEncoder.forward replaced, while a capture traces, by one
    that gives the nested path's results through the plain path."""
    original = torch.nn.TransformerEncoder.forward
    sites = []

    def forward(self, src, mask=None, src_key_padding_mask=None):
        padding = src_key_padding_mask
        if padding is None or not _nests(self, src, mask, padding):
            return original(self, src, mask, padding)
        check = getattr(self, "mask_check", True)
        # The mask's values, read outside the trace (make_fx refuses to
        # read a traced tensor); the check below puts them in the graph.
        with disable_proxy_modes_tracing():
            found = layout(padding.logical_not(), check)
        padding = torch.ops.bcast_torch.nested_layout(padding, len(sites),
                                                      check, found)
        sites.append(found)
        if found == PLAIN:
            return original(self, src, mask, padding)
        # The layers see each row's first sum(row) positions (its kept
        # ones where the mask is checked) as a boolean mask, whatever a
        # float mask's values.
        keep = padding.logical_not()
        positions = torch.arange(keep.shape[1], device=keep.device)
        keep = positions.unsqueeze(0) < _lengths(keep).unsqueeze(1)
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=None,
                           src_key_padding_mask=keep.logical_not())
        output = output.masked_fill(keep.logical_not().unsqueeze(-1), 0)
        if found < output.shape[1]:
            output = output[:, :found]
        if self.norm is not None:
            output = self.norm(output)
        return output

    torch.nn.TransformerEncoder.forward = forward
    try:
        yield
    finally:
        torch.nn.TransformerEncoder.forward = original
