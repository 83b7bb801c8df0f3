"""posenc shim for transformers.models.auto: the config mapping (real file) and stubs for the rest."""

from .configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES, AutoConfig  # noqa: F401


def __getattr__(name):
    if name.endswith("_MAPPING_NAMES"):
        from . import modeling_auto

        return getattr(modeling_auto, name)
    from transformers._posenc_runtime import make_stub

    return make_stub(f"transformers.models.auto.{name}")
