"""The few torch >= 2.5 APIs that transformers' rotary code uses and Debian's torch 1.13 lacks.

- `torch.nn.Buffer(data, persistent=True)`: in torch >= 2.5 assigning one to a Module attribute
  registers it as a buffer. Emulated by marking the tensor and registering it in Module.__setattr__.
- `torch.is_autocast_enabled(device_type)`: 1.13 has no argument (and a separate CPU function).
- `torch.compiler.is_compiling()`: nothing is compiled here, so False.
"""

import types

import torch
from torch import nn


def install():
    if not hasattr(nn, "Buffer"):

        class Buffer:
            def __new__(cls, data=None, *, persistent=True):
                tensor = (torch.empty(0) if data is None else data).detach()
                tensor._posenc_buffer_persistent = persistent
                return tensor

        nn.Buffer = Buffer
        original_setattr = nn.Module.__setattr__

        def __setattr__(self, name, value):
            if isinstance(value, torch.Tensor) and hasattr(value, "_posenc_buffer_persistent"):
                persistent = value._posenc_buffer_persistent
                del value._posenc_buffer_persistent
                self.__dict__.pop(name, None)
                self.register_buffer(name, value, persistent=persistent)
                return
            original_setattr(self, name, value)

        nn.Module.__setattr__ = __setattr__
    try:
        torch.is_autocast_enabled("cpu")
    except TypeError:
        # torch >= 2.4 takes a device type; 1.13 has one function per device
        plain = torch.is_autocast_enabled

        def is_autocast_enabled(device_type=None):
            if device_type == "cpu":
                return torch.is_autocast_cpu_enabled()
            return plain()

        torch.is_autocast_enabled = is_autocast_enabled
    if not hasattr(torch, "compiler"):
        torch.compiler = types.SimpleNamespace(is_compiling=lambda: False, disable=lambda fn=None, **kw: fn or (lambda f: f))
    elif not hasattr(torch.compiler, "is_compiling"):
        torch.compiler.is_compiling = lambda: False
