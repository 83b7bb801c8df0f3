"""posenc shim for the transformers package: its version, and config classes by name on demand."""

__version__ = "@VERSION@"


def __getattr__(name):
    if name == "PreTrainedConfig":
        from .configuration_utils import PreTrainedConfig

        return PreTrainedConfig
    if name.endswith("Config"):
        from .models.auto.configuration_auto import CONFIG_MAPPING, CONFIG_MAPPING_NAMES

        for model_type, class_name in CONFIG_MAPPING_NAMES.items():
            if class_name == name:
                return CONFIG_MAPPING[model_type]
    from ._posenc_runtime import make_stub

    return make_stub(f"transformers.{name}")
