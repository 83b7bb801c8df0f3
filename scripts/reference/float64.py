"""Run transformers' rotary code path in float64.

transformers computes RoPE tables in float32: `torch.arange(..., dtype=torch.float)`, `.float()`,
`.to(dtype=torch.float)`. To get the formula's own float64 values *through transformers' code*, while
a rotary class is constructed and called, `float64()`:

1. sets torch's default dtype to float64 (bare `torch.arange(0, dim, 2) / dim`, `torch.tensor(...)`);
2. replaces the module-global `torch` of modeling_rope_utils and of each cut rotary module by a view
   of torch whose `float` and `float32` are `torch.float64` (so `dtype=torch.float` means float64);
3. makes `Tensor.float()` return `Tensor.double()`.

Everything is restored on exit. Nothing else (config classes, validation) runs under it.
"""

import contextlib
import types

import torch


class _Torch64(types.ModuleType):
    def __init__(self):
        super().__init__("torch")

    def __getattr__(self, name):
        if name in ("float", "float32"):
            return torch.float64
        return getattr(torch, name)


TORCH64 = _Torch64()


@contextlib.contextmanager
def float64(modules):
    saved_default = torch.get_default_dtype()
    saved_float = torch.Tensor.float
    saved_globals = [(m, m.__dict__.get("torch")) for m in modules]
    torch.set_default_dtype(torch.float64)
    torch.Tensor.float = lambda self, *args, **kwargs: self.double(*args, **kwargs)
    for module, _ in saved_globals:
        module.torch = TORCH64
    try:
        yield
    finally:
        torch.set_default_dtype(saved_default)
        torch.Tensor.float = saved_float
        for module, value in saved_globals:
            module.torch = value
