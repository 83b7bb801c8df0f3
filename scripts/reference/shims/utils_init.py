"""posenc shim for transformers.utils: only the helpers that configuration and rotary code import.

Hub access (`cached_file`, `hf_api`, `extract_commit_hash`) raises: the generator never loads anything.
`auto_docstring` only writes docstrings, so it hands the decorated object back.
"""

import copy as _copy
import functools as _functools
import types as _types
from enum import Enum as _Enum

from . import logging  # noqa: F401
from .import_utils import is_torch_available, is_torch_fx_proxy  # noqa: F401

CONFIG_NAME = "config.json"
GENERATION_CONFIG_NAME = "generation_config.json"


def auto_docstring(obj=None, **kwargs):
    if obj is None:
        return lambda target: target
    return obj


def _no_hub(*args, **kwargs):
    raise RuntimeError("posenc reference generator: the Hub is not reachable from this run")


class PushToHubMixin:
    def push_to_hub(self, *args, **kwargs):
        _no_hub()


cached_file = hf_api = extract_commit_hash = _no_hub


def copy_func(f):
    g = _types.FunctionType(f.__code__, f.__globals__, name=f.__name__, argdefs=f.__defaults__, closure=f.__closure__)
    g = _functools.update_wrapper(g, f)
    g.__kwdefaults__ = _copy.copy(f.__kwdefaults__)
    return g


class ExplicitEnum(str, _Enum):
    @classmethod
    def _missing_(cls, value):
        raise ValueError(f"{value} is not a valid {cls.__name__}, please select one of {list(cls._value2member_map_)}")


def requires_backends(obj, backends):
    name = getattr(obj, "__name__", obj.__class__.__name__)
    raise ImportError(f"{name} requires the backends {backends}, which the posenc reference run does not provide")


def __getattr__(name):
    if name.startswith("is_") and name.endswith("_available"):
        return lambda *args, **kwargs: False
    from transformers._posenc_runtime import make_stub

    return make_stub(f"transformers.utils.{name}")
