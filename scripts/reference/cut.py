"""Cut named top-level definitions out of a Python source file with the `ast` module.

The generator never keeps transformers code in posenc: it cuts what a run needs out of the pinned
snapshot into build/ at run time. This module is the one place that decides what a cut contains.
"""

import ast


def _defined_names(node):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    return set()


def _loaded_names(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def top_level(source):
    """(imports, definitions) of a module: imports as source lines, definitions as {name: node}."""
    tree = ast.parse(source)
    imports, defs = [], {}
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, ast.If) and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in node.body):
            # `if is_torch_available(): import torch` and similar guarded imports
            imports.extend(node.body)
        else:
            for name in _defined_names(node):
                defs[name] = node
    return tree, imports, defs


def closure(defs, roots):
    """The roots and every top-level definition they reference, in source order."""
    wanted, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in wanted or name not in defs:
            continue
        wanted.add(name)
        todo.extend(_loaded_names(defs[name]) & set(defs))
    nodes = {id(defs[n]): defs[n] for n in wanted}
    return sorted(nodes.values(), key=lambda n: n.lineno)


def guarded_import(node):
    """An import statement that binds a named placeholder instead of failing."""
    text = ast.unparse(node)
    names = [a.asname or a.name.split(".")[0] for a in node.names]
    fallback = "".join(f"    {n} = _posenc_missing({n!r}, {text!r})\n" for n in names if n != "*")
    return f"try:\n    {text}\nexcept Exception:\n{fallback or '    pass'}\n"


def cut_module(source, roots, header):
    """A module holding the source file's imports (each guarded) and the closure of `roots`."""
    _tree, imports, defs = top_level(source)
    missing = sorted(set(roots) - set(defs))
    if missing:
        raise KeyError(f"not defined at top level: {missing}")
    parts = [header, "from transformers._posenc_runtime import missing as _posenc_missing\n"]
    parts += [guarded_import(n) for n in imports if not (isinstance(n, ast.ImportFrom) and n.module == "__future__")]
    parts += [ast.unparse(n) + "\n" for n in closure(defs, roots)]
    future = [n for n in imports if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    return "".join([ast.unparse(n) + "\n" for n in future] + parts)


def cut_class_methods(source, class_name, methods, header):
    """A module with `class_name` reduced to the named methods (no bases, no other members)."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            body = [m for m in node.body if isinstance(m, ast.FunctionDef) and m.name in methods]
            if {m.name for m in body} != set(methods):
                raise KeyError(f"{class_name} lacks {set(methods) - {m.name for m in body}}")
            cls = ast.ClassDef(name=class_name, bases=[], keywords=[], body=body, decorator_list=[])
            return header + "from typing import Any\n\n" + ast.unparse(ast.fix_missing_locations(cls)) + "\n"
    raise KeyError(class_name)


def cut_constants(source, header, names=None):
    """A module of the file's top-level assignments whose value needs nothing but literals/OrderedDict."""
    tree = ast.parse(source)
    out = [header, "from collections import OrderedDict\n"]
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = _defined_names(node)
        if not targets or (names is not None and not targets & set(names)):
            continue
        if _loaded_names(node.value if node.value is not None else node) - targets - {"OrderedDict"}:
            continue
        out.append(ast.unparse(node) + "\n")
    return "".join(out)


def class_names(source, suffix):
    """Top-level class names ending in `suffix`, with the annotation of their __init__'s `config`."""
    tree = ast.parse(source)
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.endswith(suffix):
            params, annotation = None, None
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    params = [a.arg for a in item.args.args[1:] + item.args.kwonlyargs]
                    for a in item.args.args[1:]:
                        if a.arg == "config" and a.annotation is not None:
                            annotation = ast.unparse(a.annotation)
            bases = [ast.unparse(b) for b in node.bases]
            found.append({"name": node.name, "params": params, "configAnnotation": annotation, "bases": bases})
    return found
