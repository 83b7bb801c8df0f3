"""Facts about each config class, read off the class and a default-constructed instance."""

import dataclasses
import inspect
import json
import re

# Structural / positional fields always reported in `defaults` when the class has them.
STRUCTURAL = [
    "num_hidden_layers", "num_attention_heads", "num_key_value_heads", "hidden_size", "head_dim",
    "max_position_embeddings", "rope_parameters", "layer_types", "sliding_window", "partial_rotary_factor",
    "layers_block_type", "attn_layer_indices", "attn_layer_period", "attn_layer_offset",
    "hybrid_override_pattern", "full_attention_interval", "sliding_window_pattern", "mlp_layer_types",
]
# Any other field whose name looks positional is reported as well (the rules are in README.md).
POSITIONAL_NAME = re.compile(
    r"rope|rotary|posit|alibi|window|layer_types|block_type|attn_layer|attention_layer|hybrid|interval"
    r"|pattern|head_dim|_heads$|^num_layers$|max_seq|seq_len|context|chunk|nope|mrope|section|relative"
    r"|bucket|theta|freq|scaling|multiplier|per_layer|axial|_labels$|kv_lora|qk_|v_head|layers_per|_period|_offset"
)
MAX_DEFAULT_JSON = 4096


def to_json(value, depth=0):
    """JSON form of a config value; raises TypeError for what has none (e.g. a sub-config)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"__float__": repr(value)}
        return value
    if isinstance(value, (list, tuple)):
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v, depth + 1) for k, v in value.items()}
    if type(value).__module__ == "torch" or type(value).__name__ == "dtype":
        return str(value)
    raise TypeError(f"{type(value).__name__} has no JSON form")


def base_fields(PreTrainedConfig):
    return [f.name for f in dataclasses.fields(PreTrainedConfig)]


def class_fields(cls, PreTrainedConfig):
    base = set(base_fields(PreTrainedConfig))
    return [f.name for f in dataclasses.fields(cls) if f.name not in base]


def properties(cls):
    return sorted(n for n, v in inspect.getmembers(cls) if isinstance(v, property))


def defaults_of(config, names, notes):
    out = {}
    for name in names:
        try:
            value = getattr(config, name)
        except Exception as err:  # a property that raises on a default instance
            notes.append(f"defaults.{name}: reading it raised {type(err).__name__}: {err}")
            continue
        try:
            encoded = to_json(value)
        except TypeError as err:
            notes.append(f"defaults.{name}: {err}")
            continue
        text = json.dumps(encoded)
        if len(text) > MAX_DEFAULT_JSON:
            notes.append(f"defaults.{name}: omitted ({len(text)} bytes of JSON)")
            continue
        out[name] = encoded
    return out


def default_field_names(cls, config, fields, rope_reads, PreTrainedConfig):
    base = set(base_fields(PreTrainedConfig))
    names = [n for n in STRUCTURAL if n in fields or hasattr(config, n)]
    names += [n for n in fields if POSITIONAL_NAME.search(n)]
    inherited = set(properties(PreTrainedConfig))
    names += [n for n in properties(cls)
              if POSITIONAL_NAME.search(n) and n not in base and n not in inherited and not n.startswith("_")]
    names += [n for n in rope_reads if not n.startswith("__")]
    if "_rope_type_labels" in vars(config) or hasattr(type(config), "_rope_type_labels"):
        names.append("_rope_type_labels")
    seen, out = set(), []
    for n in names:
        if n not in seen and n not in ("rope_scaling",):
            seen.add(n)
            out.append(n)
    return out


def sub_configs(cls, config):
    out = {}
    for key, sub in (getattr(cls, "sub_configs", None) or {}).items():
        instance = getattr(config, key, None) if config is not None else None
        if instance is not None and hasattr(instance, "model_type") and getattr(instance, "model_type", ""):
            out[key] = instance.model_type
        else:
            out[key] = getattr(sub, "model_type", "") or getattr(sub, "__name__", str(sub))
    return out
