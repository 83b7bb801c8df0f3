#!/usr/bin/env python3
"""posenc reference generator: runs transformers' own configuration and rotary-embedding classes
from a pinned snapshot and writes facts (bindings/js/model/transformers/families.ts) and numeric
fixtures (tests/fixtures/reference/). See README.md beside this file."""

import sys

sys.dont_write_bytecode = True

import argparse  # noqa: E402
import copy
import glob
import inspect
import json
import os
import re
import time


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import classify  # noqa: E402
import emit  # noqa: E402
import facts  # noqa: E402
import rotary  # noqa: E402
from materialise import materialise  # noqa: E402
from snapshot import Snapshot  # noqa: E402


def _error(err):
    text = f"{type(err).__name__}: {err}"
    return re.sub(r"\s+", " ", text).strip()[:600]


# A rotary failure on these config paths refuses the config; one on a vision/audio sub-config is only recorded.
TEXT_PATHS = ("", "text_config", "decoder", "decoder_config", "language_config", "llm_config", "text_encoder")


def _error_text(text):
    return re.sub(r"\s+", " ", text).strip()[:600]


class Generator:
    def __init__(self, args):
        self.args = args
        self.repo = os.path.abspath(args.repo)
        self.tx = Snapshot(args.transformers, args.commit)
        self.hub = Snapshot(args.huggingface_hub, args.hub_commit)
        self.hub.version = re.search(r'__version__ = "([^"]+)"', self.hub.read("src/huggingface_hub/__init__.py")).group(1)
        self.root = os.path.join(self.repo, "build", "reference", "tree")

    def log(self, *parts):
        print(*parts, file=sys.stderr, flush=True)

    # ---------------------------------------------------------------- config classes
    def load(self):
        t0 = time.time()
        self.info = materialise(self.tx, self.hub, self.root)
        self.log(f"materialised {len(self.info['folders'])} model folders into {self.root} ({time.time() - t0:.1f} s)")
        from runtime import Runtime

        self.rt = Runtime(self.root)
        self.version = self.info["version"]
        self.families = {}  # model_type -> record
        self.folder_errors = {}
        for folder, entry in self.info["folders"].items():
            if not entry["configuration"]:
                continue
            found = False
            for name in entry["configuration"]:
                module_name = f"transformers.models.{folder}.{name[:-3]}"
                try:
                    module = self.rt.module(module_name)
                except Exception as err:
                    self.folder_errors[folder] = f"importing {name}: {_error(err)}"
                    continue
                for cls_name, cls in vars(module).items():
                    if not (inspect.isclass(cls) and cls.__module__ == module_name):
                        continue
                    if not issubclass(cls, self.rt.PreTrainedConfig) or not getattr(cls, "model_type", ""):
                        continue
                    found = True
                    record = {"cls": cls, "folder": folder, "configFile": name, "notes": []}
                    if cls.model_type in self.families:
                        self.families[cls.model_type]["notes"].append(
                            f"model_type also claimed by {cls.__name__} ({folder}/{name})")
                        continue
                    self.families[cls.model_type] = record
            if not found and folder not in self.folder_errors:
                self.folder_errors[folder] = "no config class with a model_type in " + ", ".join(entry["configuration"])
        for folder, message in self.folder_errors.items():
            self.families.setdefault(f"<folder:{folder}>", {"cls": None, "folder": folder, "error": message, "notes": []})
        self.log(f"{len(self.families)} config classes; {len(self.folder_errors)} folders without one")

    def instantiate(self):
        for model_type, rec in self.families.items():
            if rec["cls"] is None:
                continue
            self.rt.warnings.take()
            try:
                rec["default"] = rec["cls"]()
                rec["error"] = None
            except Exception as err:
                rec["default"] = None
                rec["error"] = _error(err)
            rec["warnings"] = self.rt.warnings.take()

    # ---------------------------------------------------------------- rotary classes
    def rotary_modules(self):
        """{folder: [(modeling file, module, [class info])]} with the cut modules imported."""
        self.rotary_by_folder = {}
        for (folder, modeling), entry in sorted(self.info["rotary"].items()):
            module, error = None, entry["error"]
            if error is None:
                try:
                    module = self.rt.module(f"transformers.models.{folder}.{entry['module']}")
                except Exception as err:
                    error = _error(err)
            self.rotary_by_folder.setdefault(folder, []).append(
                {"file": modeling, "module": module, "classes": entry["classes"], "error": error})

    def assign_rotary(self):
        """Which rotary classes run on which config class: the `config` annotation of __init__ names it."""
        by_folder = {}
        for model_type, rec in self.families.items():
            rec["rotary"] = []
            if rec["cls"] is not None:
                by_folder.setdefault(rec["folder"], []).append(model_type)
        for folder, files in self.rotary_by_folder.items():
            members = by_folder.get(folder, [])
            for f in files:
                infos = {c["name"]: c for c in f["classes"]}
                for info in f["classes"]:
                    resolved = info
                    while resolved["params"] is None and resolved["bases"] and resolved["bases"][0] in infos:
                        resolved = infos[resolved["bases"][0]]
                    params = resolved["params"]
                    annotation = (resolved["configAnnotation"] or "").strip("'\"")
                    if params is None or "config" not in params:
                        for mt in members:
                            self.families[mt]["notes"].append(
                                f"{info['name']} takes ({', '.join(params or [])}), not a config: not run")
                        continue
                    targets = [mt for mt in members if self.families[mt]["cls"].__name__ == annotation]
                    if len(targets) == 1 and getattr(self.families[targets[0]]["cls"], "sub_configs", None):
                        # A composite annotation: the modeling code hands the rotary class a sub-config.
                        composite = targets[0]
                        annotated = {(c["configAnnotation"] or "").strip("'\"") for g in files for c in g["classes"]}
                        subs = self._rope_sub_configs(composite, members, annotated - {annotation})
                        if subs:
                            for mt in subs:
                                self.families[mt]["notes"].append(
                                    f"{info['name']} is annotated with the composite {annotation}; run on this sub-config")
                            self.families[composite]["notes"].append(
                                f"{info['name']} is annotated with this composite class; run on its sub-configs {subs}")
                            targets = subs
                    if not targets:
                        targets = [mt for mt in members
                                   if self.families[mt].get("default") is not None
                                   and getattr(self.families[mt]["default"], "rope_parameters", None)]
                        for mt in targets:
                            self.families[mt]["notes"].append(
                                f"{info['name']}'s config annotation {annotation or '(none)'!r} names no class here; run on this config")
                    for mt in targets:
                        if all(n != info["name"] for _, n in self.families[mt]["rotary"]):
                            self.families[mt]["rotary"].append((f, info["name"]))

    def _rope_sub_configs(self, composite, members, annotated):
        """Same-folder sub-configs (searched through nested composites, e.g. Qwen3-Omni's
        thinker_config.text_config) of a composite default config that carry rope_parameters and that
        no rotary class of the folder names in its own annotation."""
        out = []

        def walk(config, depth):
            for key in getattr(type(config), "sub_configs", {}) or {}:
                sub = getattr(config, key, None)
                mt = getattr(sub, "model_type", None)
                if sub is None or mt not in members or mt in out:
                    continue
                if getattr(sub, "rope_parameters", None):
                    if type(sub).__name__ not in annotated:
                        out.append(mt)
                elif depth < 3:
                    walk(sub, depth + 1)

        config = self.families[composite].get("default")
        if config is not None:
            walk(config, 0)
        return out

    def run_rotary(self, config, pairs, want_tables):
        runs = []
        modules = [self.rt.rope_utils]
        for f, name in pairs:
            if f["module"] is None:
                runs.append({"class": name, "error": f"cutting/importing {f['file']}: {f['error']}"})
                continue
            cls = getattr(f["module"], name)
            self.rt.warnings.take()
            result = rotary.run(self.rt, config, cls, modules + [f["module"]], want_tables)
            if "error" in result:
                result["error"] = _error_text(result["error"])
            result["warnings"] = self.rt.warnings.take()
            if "error" in result and self.args.verbose:
                self.log(f"{name} on {type(config).__name__}: {result['error']}")
            runs.append(result)
        return runs

    # ---------------------------------------------------------------- facts
    def family_facts(self):
        out = []
        base = facts.base_fields(self.rt.PreTrainedConfig)
        positions_cache = {}
        for model_type in sorted(self.families):
            rec = self.families[model_type]
            entry = self.info["folders"].get(rec["folder"], {"modeling": [], "configuration": []})
            modeling = entry["modeling"]
            preferred = f"modeling_{rec['folder']}.py"
            modeling_file = preferred if preferred in modeling else (modeling[0] if modeling else None)
            sources = [self.tx.read(f"src/transformers/models/{rec['folder']}/{m}") for m in modeling]
            rotary_classes = [c["name"] for f in self.rotary_by_folder.get(rec["folder"], []) for c in f["classes"]]
            notes = list(rec["notes"])
            fact = {
                "configClass": rec["cls"].__name__ if rec["cls"] else None,
                "folder": rec["folder"],
                "modelingFile": f"src/transformers/models/{rec['folder']}/{modeling_file}" if modeling_file else None,
            }
            if rec["cls"] is None:
                fact.update({"fields": [], "defaults": {}, "attributeMap": {}, "subConfigs": {}, "ropeReads": [],
                             "rotaryClasses": rotary_classes, "positions": "unknown", "notes": notes,
                             "error": rec["error"]})
                out.append((model_type, fact))
                continue
            cls, config = rec["cls"], rec.get("default")
            fields = facts.class_fields(cls, self.rt.PreTrainedConfig)
            reads = []
            runs = rec.get("runs") or []
            if runs:
                for r in runs:
                    if "error" in r:
                        notes.append(f"{r['class']} on the default config raised {r['error']}")
                    for k in r.get("reads", []):
                        if k not in reads:
                            reads.append(k)
                    notes.append(f"runs {r['class']}" + (f" (labels {r['labels']})" if r.get("labels") and r["labels"] != [None] else ""))
            for k in self.extra_reads.get(model_type, []):
                if k not in reads:
                    reads.append(k)
            defaults = {}
            if config is not None:
                names = facts.default_field_names(cls, config, fields, reads, self.rt.PreTrainedConfig)
                defaults = facts.defaults_of(config, names, notes)
                rope = getattr(config, "rope_parameters", None)
                if isinstance(rope, dict) and getattr(config, "_rope_type_labels", None):
                    notes.append(f"rope_parameters keyed by _rope_type_labels {list(config._rope_type_labels)}")
                try:
                    if getattr(config, "is_heterogeneous", False):
                        notes.append("default config is heterogeneous (per_layer_config overrides)")
                except Exception:
                    pass
            for w in rec.get("warnings", [])[:3]:
                notes.append("warning on default construction: " + re.sub(r"\s+", " ", w)[:300])
            is_text = config is not None and ("vocab_size" in fields or hasattr(config, "vocab_size"))
            subs = facts.sub_configs(cls, config)
            sub_text = None
            for key in TEXT_PATHS[1:]:
                if key in subs:
                    sub_type = subs[key]
                    sub_text = (positions_cache.get(sub_type) or self._positions_of(sub_type, positions_cache), f"{key} ({sub_type})")
                    break
            kinds = classify.scan(sources)
            folder_files = [os.path.basename(p) for p in self.tx.files(f"src/transformers/models/{rec['folder']}/")]
            pos, pnotes = classify.positions(cls.__name__, is_text, bool(rec["rotary"]) and any("error" not in r for r in runs),
                                             sub_text if sub_text and sub_text[0] else None, kinds, bool(modeling), folder_files)
            positions_cache[model_type] = pos
            fact.update({
                "fields": fields,
                "defaults": defaults,
                "attributeMap": dict(getattr(cls, "attribute_map", {}) or {}),
                "subConfigs": subs,
                "ropeReads": reads,
                "rotaryClasses": rotary_classes,
                "positions": pos,
                "notes": notes + pnotes,
            })
            if rec["error"]:
                fact["error"] = rec["error"]
            out.append((model_type, fact))
        self.base_fields = base
        return out

    def _positions_of(self, model_type, cache):
        rec = self.families.get(model_type)
        if rec is None or rec.get("cls") is None:
            return None
        if model_type in cache:
            return cache[model_type]
        config = rec.get("default")
        runs_ok = bool(rec.get("rotary"))
        if runs_ok and config is not None:
            return "rope"
        entry = self.info["folders"].get(rec["folder"], {"modeling": []})
        sources = [self.tx.read(f"src/transformers/models/{rec['folder']}/{m}") for m in entry["modeling"]]
        kinds = classify.scan(sources)
        for k in ("rope", "alibi", "relative", "absolute"):
            if k in kinds:
                return k
        return "none" if entry["modeling"] else "unknown"

    # ---------------------------------------------------------------- fixtures
    def fixture(self, name, source, config_dict, model_type):
        rec = self.families.get(model_type)
        fx = {"name": name, "source": source, "transformers": self.stamp(), "modelType": model_type,
              "config": config_dict}
        if rec is None or rec.get("cls") is None:
            fx.update({"accepted": False, "rejectedBy": "config",
                       "exception": f"model_type {model_type!r} has no config class in this snapshot"})
            return fx
        self.rt.warnings.take()
        try:
            config = rec["cls"].from_dict(copy.deepcopy(config_dict))
        except Exception as err:
            fx.update({"accepted": False, "rejectedBy": "config", "exception": f"{rec['cls'].__name__}: {_error(err)}",
                       "warnings": self.rt.warnings.take()})
            return fx
        fx["configClass"] = rec["cls"].__name__
        fx["warnings"] = self.rt.warnings.take()
        fx["rotary"] = []
        targets = [("", config, rec)]
        for key in (getattr(rec["cls"], "sub_configs", None) or {}):
            sub = getattr(config, key, None)
            sub_rec = self.families.get(getattr(sub, "model_type", None) or "")
            if sub is not None and sub_rec is not None and sub_rec.get("rotary"):
                targets.append((key, sub, sub_rec))
        accepted = True
        for path, cfg, r in targets:
            if not r.get("rotary"):
                continue
            entry = {"configPath": path, "configClass": type(cfg).__name__,
                     "ropeParameters": facts.to_json(getattr(cfg, "rope_parameters", None)),
                     "layerTypes": facts.to_json(getattr(cfg, "layer_types", None)),
                     "embeddings": []}
            for run in self.run_rotary(cfg, r["rotary"], want_tables=True):
                if "error" in run and path in TEXT_PATHS:
                    accepted = False
                bucket = self.extra_reads.setdefault(getattr(cfg, "model_type", ""), [])
                bucket.extend(k for k in run.get("reads", []) if k not in bucket)
                entry["embeddings"].append(run)
            fx["rotary"].append(entry)
        fx["accepted"] = accepted
        if not accepted:
            failed = [e for t in fx["rotary"] if t["configPath"] in TEXT_PATHS for e in t["embeddings"] if "error" in e]
            fx["rejectedBy"] = f"rotary-{failed[0].get('stage', 'init')}"
            fx["exception"] = "; ".join(f"{e['class']} ({e.get('stage', 'init')}): {e['error']}" for e in failed)
        top = fx["rotary"][0] if fx["rotary"] else None
        fx["ropeParameters"] = top["ropeParameters"] if top else facts.to_json(getattr(config, "rope_parameters", None))
        fx["layerTypes"] = top["layerTypes"] if top else facts.to_json(getattr(config, "layer_types", None))
        return fx

    def stamp(self):
        return {"repository": "huggingface/transformers", "commit": self.tx.commit, "version": self.version}

    def published_configs(self):
        out = []
        for path in sorted(glob.glob(os.path.join(self.repo, "tests/fixtures/models/*.json"))):
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            out.append((os.path.basename(path)[:-5], f"tests/fixtures/models/{os.path.basename(path)} (see SOURCES.md there)", data))
        for path in sorted(glob.glob(os.path.join(self.repo, "tests/fixtures/reference-configs/*.json"))):
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            out.append((os.path.basename(path)[:-5], f"tests/fixtures/reference-configs/{os.path.basename(path)} (see SOURCES.md there)", data))
        variants = os.path.join(self.repo, "tests/fixtures/reference-configs/variants")
        for path in sorted(glob.glob(os.path.join(variants, "*.json"))):
            with open(path, encoding="utf-8") as handle:
                spec = json.load(handle)
            if "config" in spec:
                data, how = spec["config"], "written for the test"
            else:
                with open(os.path.normpath(os.path.join(variants, spec["base"])), encoding="utf-8") as handle:
                    data = json.load(handle)
                data.update(spec["set"])
                how = f"{os.path.normpath(os.path.join('tests/fixtures/reference-configs/variants', spec['base']))} with {json.dumps(spec['set'])}"
            rel = f"tests/fixtures/reference-configs/variants/{os.path.basename(path)}"
            out.append(("variant:" + os.path.basename(path)[:-5], f"variant (not a published config): {how}; {rel}: {spec['why']}", data))
        return out

    def main(self):
        t0 = time.time()
        self.load()
        self.instantiate()
        self.rotary_modules()
        self.assign_rotary()
        fixtures = []
        self.extra_reads = {}
        for model_type, rec in sorted(self.families.items()):
            if rec.get("cls") is None or not rec.get("rotary") or rec.get("default") is None:
                continue
            rec["runs"] = self.run_rotary(rec["default"], rec["rotary"], want_tables=True)
            fixtures.append(self.default_fixture(model_type, rec))
        for name, source, data in self.published_configs():
            model_type = data.get("model_type")
            label = f"variant-{name[len('variant:'):]}" if name.startswith("variant:") else f"published-{name}"
            fixtures.append(self.fixture(label, source, data, model_type))
        fam = self.family_facts()
        emit.families_ts(self, fam, os.path.join(self.repo, "bindings/js/model/transformers/families.ts"))
        emit.fixtures(self, fixtures, os.path.join(self.repo, "tests/fixtures/reference"))
        self.log(f"done in {time.time() - t0:.1f} s: {len(fam)} config classes, {len(fixtures)} fixtures, "
                 f"{len(self.rt.stubbed)} stubbed names (listed in tests/fixtures/reference/index.json)")

    def default_fixture(self, model_type, rec):
        fx = {"name": f"default-{model_type}", "source": f"default-constructed {rec['cls'].__name__}()",
              "transformers": self.stamp(), "modelType": model_type, "configClass": rec["cls"].__name__,
              "config": {}, "accepted": True}
        runs = rec.get("runs") or []
        config = rec["default"]
        fx["ropeParameters"] = facts.to_json(getattr(config, "rope_parameters", None))
        fx["layerTypes"] = facts.to_json(getattr(config, "layer_types", None))
        fx["rotary"] = [{"configPath": "", "configClass": rec["cls"].__name__, "ropeParameters": fx["ropeParameters"],
                         "layerTypes": fx["layerTypes"], "embeddings": runs}]
        failed = [r for r in runs if "error" in r]
        if failed:
            fx["accepted"] = False
            fx["rejectedBy"] = f"rotary-{failed[0].get('stage', 'init')}"
            fx["exception"] = "; ".join(f"{r['class']} ({r.get('stage', 'init')}): {r['error']}" for r in failed)
        fx["warnings"] = rec.get("warnings", [])
        return fx


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--transformers", required=True, help="bare git dir or checkout of huggingface/transformers")
    p.add_argument("--commit", help="commit to read (default: HEAD of the bare dir / the checkout as is)")
    p.add_argument("--huggingface-hub", required=True, help="bare git dir or checkout of huggingface/huggingface_hub")
    p.add_argument("--hub-commit", help="commit of huggingface_hub to read (default HEAD)")
    p.add_argument("--repo", default=os.path.join(HERE, "..", ".."), help="posenc repository root")
    p.add_argument("--verbose", action="store_true")
    return p.parse_args(argv)


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        # transformers iterates sets of layer types (`set(config.layer_types)`): fix string hashing so
        # two runs on one snapshot write the same files
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, "PYTHONHASHSEED": "0"})
    Generator(parse(sys.argv[1:])).main()
