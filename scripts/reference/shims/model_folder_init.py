"""posenc shim for a model folder's __init__: names are looked up in its configuration modules."""

import importlib

_CONFIG_MODULES = @MODULES@


def __getattr__(name):
    for module_name in _CONFIG_MODULES:
        module = importlib.import_module(f"{__name__}.{module_name}")
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(name)
