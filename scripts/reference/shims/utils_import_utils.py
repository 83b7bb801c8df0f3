"""posenc shim for transformers.utils.import_utils: torch is there, every optional backend is not."""


def is_torch_available():
    return True


def is_torch_fx_proxy(x):
    return False


def resolve_internal_import(module, name):
    return getattr(module, name, None)


def __getattr__(name):
    if name.startswith("is_") and name.endswith("_available"):
        return lambda *args, **kwargs: False
    raise AttributeError(name)
