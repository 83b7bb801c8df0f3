"""Construct one of transformers' *RotaryEmbedding classes on a config and read its tables in float64,
tracing which config attributes the code reads."""

import contextlib
import inspect

import torch

from float64 import float64

BIG_POSITION = 100_000
# A table larger than this (Pixtral's 2-D patch table) keeps only its shape; no text rotary comes near it.
MAX_INV_FREQ = 4096


class Trace:
    """Records attribute reads on every config object while active (patched __getattribute__)."""

    def __init__(self, PreTrainedConfig):
        self.cls = PreTrainedConfig
        self.reads = []

    @contextlib.contextmanager
    def active(self):
        original = self.cls.__getattribute__
        reads = self.reads

        def __getattribute__(obj, key):
            value = original(obj, key)
            if not key.startswith("__") and not callable(value):
                reads.append((type(obj).__name__, key))
            return value

        self.cls.__getattribute__ = __getattribute__
        try:
            yield
        finally:
            self.cls.__getattribute__ = original

    def data_reads(self, config):
        """Names read on `config` itself that are data (fields, instance attributes or properties)."""
        out = []
        owner = type(config).__name__
        for cls_name, key in self.reads:
            if cls_name != owner or key in out or key in ("attribute_map", "sub_configs"):
                continue
            if key.startswith("_") and key not in ("_rope_type_labels",):
                continue
            out.append(key)
        return out


def _labels(module):
    names = [n for n, _ in module.named_buffers()]
    labels = []
    for n in names:
        if n.endswith("inv_freq") and not n.endswith(("original_inv_freq", "long_inv_freq")):
            labels.append(None if n == "inv_freq" else n[: -len("_inv_freq")])
    return labels


def _scaling(module, label):
    name = "attention_scaling" if label is None else f"{label}_attention_scaling"
    value = getattr(module, name, None)
    if value is None and label is not None and isinstance(getattr(module, "attention_scaling", None), dict):
        value = module.attention_scaling.get(label)
    if isinstance(value, torch.Tensor):
        value = value.item()
    return value


def columns_for(width):
    """Which cos/sin columns a fixture keeps: all up to 32, else first 8, middle 8, last 8."""
    if width <= 32:
        return list(range(width))
    half = width // 2
    return sorted(set(range(8)) | set(range(half - 4, half + 4)) | set(range(width - 8, width)))


def _call(module, x, positions, label):
    ids = torch.tensor([positions], dtype=torch.int64)
    params = inspect.signature(type(module).forward).parameters
    kwargs = {"layer_type": label} if label is not None or "layer_type" in params else {}
    if label is None and "layer_type" in params and params["layer_type"].default is inspect.Parameter.empty:
        kwargs = {"layer_type": None}
    try:
        return module(x, ids, **kwargs), "2d"
    except Exception as first:
        try:  # multimodal RoPE takes (3, batch, seq) position ids; text tokens use one position in all three
            return module(x, ids[None].expand(3, 1, -1), **kwargs), "3d"
        except Exception as second:
            raise RuntimeError(f"with (batch, seq) position ids: {type(first).__name__}: {first}; "
                               f"with (3, batch, seq): {type(second).__name__}: {second}") from second


def _cos_sin(output):
    """(cos, sin, form): most classes return (cos, sin); some (DeepSeek-V2, Llama 4) one complex tensor."""
    if isinstance(output, torch.Tensor) and output.is_complex():
        return output.real, output.imag, "complex"
    cos, sin = output
    return cos, sin, "cos-sin"


def _rows(tensor, cols, n):
    """Rows of a (..., positions, width) table: the first entry of every leading axis (batch 1; an
    M-RoPE section axis holds the same text positions in each section)."""
    if tensor.dim() < 2 or tensor.shape[-2] != n:
        raise ValueError(f"output shape {tuple(tensor.shape)} does not end in ({n} positions, width)")
    t = tensor.reshape(-1, tensor.shape[-2], tensor.shape[-1])[0]
    return [[float(t[i, c]) for c in cols] for i in range(n)]


def original_context(config):
    rp = getattr(config, "rope_parameters", None) or {}
    candidates = [rp] + [v for v in rp.values() if isinstance(v, dict)]
    for d in candidates:
        if isinstance(d.get("original_max_position_embeddings"), int):
            return d["original_max_position_embeddings"]
    value = getattr(config, "max_position_embeddings", None)
    return value if isinstance(value, int) else None


def positions_for(orig):
    points = {0, 1, 7, BIG_POSITION}
    if orig:
        points |= {orig - 1, orig, 2 * orig}
    return sorted(p for p in points if p >= 0)


def is_dynamic(module, label):
    rope_type = module.rope_type if label is None else module.rope_type.get(label)
    return isinstance(rope_type, str) and ("dynamic" in rope_type or rope_type == "longrope"), rope_type


def run(rt, config, cls, modules, want_tables):
    """{reads, labels, tables?} for rotary class `cls` on `config`; raises what the class raises."""
    trace = Trace(rt.PreTrainedConfig)
    orig = original_context(config)
    positions = positions_for(orig)
    result = {"class": cls.__name__, "reads": [], "tables": []}
    stages = []
    stage = "init"
    try:
        with float64(modules), trace.active():
            _run(cls, config, positions, want_tables, result, lambda s: stages.append(s))
    except Exception as err:
        result["error"] = f"{type(err).__name__}: {err}"
        result["stage"] = stages[-1] if stages else stage
    result["reads"] = trace.data_reads(config)
    return result


def _run(cls, config, positions, want_tables, result, at):
    at("init")
    module = cls(config)
    at("forward")
    labels = _labels(module)
    result["labels"] = labels
    for label in labels:
        dynamic, rope_type = is_dynamic(module, label) if hasattr(module, "rope_type") else (False, None)
        groups = [(None, positions)]
        if dynamic:
            # dynamic/longrope recompute inv_freq from the largest position in the call (seq_len = max + 1)
            groups = [(p + 1, [q for q in positions if q <= p]) for p in positions if p >= 1]
        for seq_len, pts in groups:
            failed = []
            if seq_len is not None:
                module = cls(config)  # a fresh module: the table of one call whose longest position is seq_len - 1
            try:
                output, layout = _call(module, torch.zeros(1, len(pts), 1, dtype=torch.float64), pts, label)
            except Exception as err:
                if seq_len is not None:
                    raise
                # e.g. a vision table that ends before 100000: keep the positions the class can take
                good = []
                for q in pts:
                    try:
                        _call(module, torch.zeros(1, 1, 1, dtype=torch.float64), [q], label)
                        good.append(q)
                    except Exception as single:
                        failed.append({"position": q, "error": f"{type(single).__name__}: {single}"[:300]})
                if not good:
                    raise err
                pts = good
                output, layout = _call(module, torch.zeros(1, len(pts), 1, dtype=torch.float64), pts, label)
            cos, sin, form = _cos_sin(output)
            inv_now = module.get_buffer("inv_freq" if label is None else f"{label}_inv_freq")
            if not want_tables:
                break
            width = cos.shape[-1]
            cols = columns_for(width)
            result["tables"].append({
                "label": label,
                "ropeType": rope_type,
                "seqLen": seq_len,
                "invFreq": [float(v) for v in inv_now.reshape(-1)] if inv_now.numel() <= MAX_INV_FREQ else None,
                "invFreqShape": list(inv_now.shape),
                "invFreqDtype": str(inv_now.dtype).replace("torch.", ""),
                "attentionScaling": _scaling(module, label),
                "positionIds": layout,
                "output": form,
                "positions": pts,
                "width": width,
                "columns": cols,
                "cos": _rows(cos, cols, len(pts)),
                "sin": _rows(sin, cols, len(pts)),
                "cosDtype": str(cos.dtype).replace("torch.", ""),
                **({"failedPositions": failed} if failed else {}),
            })
