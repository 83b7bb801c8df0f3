"""posenc reference generator: the runtime every stubbed name goes through (written by posenc).

A module of `transformers` that the run did not materialise is served by `StubFinder` as a module
whose every attribute is a `Stub`; each such access is recorded in `STUBBED` so the generator can
report exactly what was not real code.
"""

import importlib.abc
import importlib.machinery
import sys
import types

STUBBED = set()


class _StubMeta(type):
    def __call__(cls, *args, **kwargs):
        # Used as a decorator (`@stub` or `@stub(...)`): hand the decorated object back unchanged.
        if len(args) == 1 and not kwargs and (isinstance(args[0], type) or callable(args[0])):
            return args[0]
        return cls

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return make_stub(f"{cls.__qualname__}.{name}")

    def __getitem__(cls, key):
        return make_stub(f"{cls.__qualname__}[{key!r}]")

    def __or__(cls, other):
        return cls

    def __ror__(cls, other):
        return cls

    def __repr__(cls):
        return f"<posenc stub {cls.__qualname__}>"


def make_stub(qualname):
    STUBBED.add(qualname)
    return _StubMeta(qualname.rsplit(".", 1)[-1], (), {"__qualname__": qualname})


def missing(name, statement):
    """What a guarded import binds when the import fails."""
    return make_stub(f"<failed import: {statement}>.{name}")


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = make_stub(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves any not-materialised `transformers.*` (and `kernels`, ...) module as a stub module."""

    def __init__(self, prefixes):
        self.prefixes = tuple(prefixes)

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(self.prefixes):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            try:
                spec = finder.find_spec(fullname, path, target)
            except Exception:
                spec = None
            if spec is not None:
                return None  # a real file exists: let the normal machinery load it
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        STUBBED.add(spec.name)
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass
