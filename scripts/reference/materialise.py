"""Lay out, under build/, the smallest importable `transformers` (+ `huggingface_hub.dataclasses`)
that runs the snapshot's own configuration classes and rotary-embedding classes.

Real files, byte for byte from the snapshot: configuration_utils.py, modeling_rope_utils.py,
backbone_utils.py, integrations/heterogeneity/*, utils/generic.py, utils/type_validators.py, utils/constants.py,
models/auto/{configuration_auto,auto_mappings}.py and every models/*/configuration_*.py; from the
huggingface_hub snapshot: dataclasses.py (the `@strict` validator every config class uses).
Cut out of the snapshot (see cut.py): GenerationConfig's default generation parameters, the constant
tables of models/auto/modeling_auto.py, the StrictDataclass* errors of
huggingface_hub/errors.py, and each modeling file's *RotaryEmbedding classes with what they reference.
Hand-written shims (shims/): package __init__ files, image_utils.py (re-exports utils/constants.py), utils/__init__.py, utils/logging.py,
utils/import_utils.py and the stub runtime.
"""

import json
import os
import re
import shutil

import cut

HERE = os.path.dirname(os.path.abspath(__file__))
SHIMS = os.path.join(HERE, "shims")
SRC = "src/transformers/"

REAL_FILES = [
    "configuration_utils.py",
    "modeling_rope_utils.py",
    "backbone_utils.py",
    "integrations/heterogeneity/__init__.py",
    "integrations/heterogeneity/configuration_utils.py",
    "utils/generic.py",
    "utils/type_validators.py",
    "utils/constants.py",
    "models/auto/configuration_auto.py",
    "models/auto/auto_mappings.py",
]


def _write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _shim(name):
    with open(os.path.join(SHIMS, name), encoding="utf-8") as handle:
        return handle.read()


def model_folders(snapshot):
    """{folder: {"configuration": [file names], "modeling": [file names]}} for every model folder."""
    folders = {}
    for path in snapshot.files(SRC + "models/"):
        parts = path[len(SRC + "models/"):].split("/")
        if len(parts) != 2:
            continue
        folder, name = parts
        entry = folders.setdefault(folder, {"configuration": [], "modeling": []})
        if re.fullmatch(r"configuration_\w+\.py", name):
            entry["configuration"].append(name)
        elif re.fullmatch(r"modeling_\w+\.py", name):
            entry["modeling"].append(name)
    return {k: v for k, v in sorted(folders.items()) if k != "auto" and not k.startswith("__")}


def materialise(snapshot, hub, root):
    """Write the tree under `root` (emptied first). Returns facts about what was written."""
    if os.path.isdir(root):
        shutil.rmtree(root)
    tx = os.path.join(root, "transformers")
    header = f"# cut by posenc's reference generator from transformers@{snapshot.commit}\n"

    version = re.search(r'__version__ = "([^"]+)"', snapshot.read(SRC + "__init__.py")).group(1)
    _write(tx, "__init__.py", _shim("transformers_init.py").replace("@VERSION@", version))
    _write(tx, "_posenc_runtime.py", _shim("_posenc_runtime.py"))
    for rel in REAL_FILES:
        _write(tx, rel, snapshot.read(SRC + rel))
    _write(tx, "utils/__init__.py", _shim("utils_init.py"))
    _write(tx, "utils/logging.py", _shim("utils_logging.py"))
    _write(tx, "utils/import_utils.py", _shim("utils_import_utils.py"))
    _write(tx, "integrations/__init__.py", "")
    _write(tx, "generation/__init__.py", "")
    _write(
        tx,
        "generation/configuration_utils.py",
        cut.cut_class_methods(
            snapshot.read(SRC + "generation/configuration_utils.py"),
            "GenerationConfig",
            ["_get_default_generation_params"],
            header,
        ),
    )
    _write(tx, "image_utils.py", "from .utils.constants import *  # posenc shim: image_utils' constants only\n")
    _write(tx, "models/__init__.py", "")
    _write(tx, "models/auto/__init__.py", _shim("models_auto_init.py"))
    _write(tx, "models/auto/modeling_auto.py", cut.cut_constants(snapshot.read(SRC + "models/auto/modeling_auto.py"), header))

    folders = model_folders(snapshot)
    rotary = {}
    for folder, entry in folders.items():
        modules = [n[:-3] for n in entry["configuration"]]
        _write(tx, f"models/{folder}/__init__.py", _shim("model_folder_init.py").replace("@MODULES@", json.dumps(modules)))
        for name in entry["configuration"]:
            _write(tx, f"models/{folder}/{name}", snapshot.read(f"{SRC}models/{folder}/{name}"))
        for name in entry["modeling"]:
            source = snapshot.read(f"{SRC}models/{folder}/{name}")
            classes = cut.class_names(source, "RotaryEmbedding")
            if not classes:
                continue
            module = "_posenc_rotary_" + name[len("modeling_"):-3]
            try:
                text = cut.cut_module(source, [c["name"] for c in classes], header)
                _write(tx, f"models/{folder}/{module}.py", text)
                error = None
            except Exception as err:  # a cut that fails is reported, not hidden
                error = f"{type(err).__name__}: {err}"
            rotary[(folder, name)] = {"module": module, "classes": classes, "error": error}

    hub_root = os.path.join(root, "huggingface_hub")
    hub_src = "src/huggingface_hub/"
    _write(hub_root, "__init__.py", f'__version__ = "{hub.version}"\n')
    _write(hub_root, "dataclasses.py", hub.read(hub_src + "dataclasses.py"))
    errors = [n for n in ("StrictDataclassError", "StrictDataclassDefinitionError",
                          "StrictDataclassFieldValidationError", "StrictDataclassClassValidationError")]
    _write(hub_root, "errors.py", cut.cut_module(hub.read(hub_src + "errors.py"), errors,
                                                 f"# cut by posenc's reference generator from huggingface_hub@{hub.commit}\n")
           .replace("from transformers._posenc_runtime import missing as _posenc_missing\n",
                    "def _posenc_missing(name, statement):\n    return None\n"))
    return {"version": version, "folders": folders, "rotary": rotary}
