"""How a family gives text tokens positions, from a scan of its modeling code (rules in README.md)."""

import ast
import re

ALIBI = re.compile(r"alibi", re.I)
RELATIVE = re.compile(r"relative_attention_bias|relative_position|rel_pos|position_bias|RelPositional|rel_attn|pos_bias")
ABSOLUTE = re.compile(r"position_embeddings\s*=\s*nn\.Embedding|embed_positions|wpe\s*=|PositionalEmbedding|SinusoidalPosition|position_embedding\s*=\s*nn\.Embedding")
VISION = re.compile(r"Vision|Image|Video|Visual|ViT|Vit[A-Z]|Pixel|Patch|Detr|Det[A-Z]|Seg|Depth|Dino|Swin|Conv[A-Z]|Backbone|Sam|Yolo|Mask|Pose|Point|Glue|Vqvae|VQ", re.S)
AUDIO = re.compile(r"Audio|Speech|Wav|Whisper|Encodec|Mel|Hubert|Sound|Music|Mimi|Dac|Codec|Acoustic|Semantic|Clap|Tts|TTS|Voice|Asr|Parakeet|Seamless|Conformer", re.S)


ROPE_CALL = re.compile(r"RotaryEmbedding$|^apply_rotary|^rotate_half$|rotary_emb$|^apply_rope|^rope$")


def applies_rope(source):
    """True when a function other than the RoPE helpers themselves calls a RoPE helper or rotary module.

    Defining `apply_rotary_pos_emb` (or handing it to a kernel decorator) is not applying it: Jamba and
    Nemotron-H carry the helper but their attention never calls it.
    """
    tree = ast.parse(source)

    def visit(node, inside_helper):
        for child in ast.iter_child_nodes(node):
            helper = inside_helper
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                helper = inside_helper or bool(re.search(r"rotary|rotate|rope", child.name, re.I))
            if isinstance(child, ast.ClassDef):
                helper = inside_helper or child.name.endswith("RotaryEmbedding")
            if isinstance(child, ast.Call) and not inside_helper:
                func = child.func
                name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if ROPE_CALL.search(name):
                    return True
            if visit(child, helper):
                return True
        return False

    return visit(tree, False)


def scan(sources):
    text = "\n".join(sources)
    found = []
    if any(applies_rope(s) for s in sources):
        found.append("rope")
    for name, rx in (("alibi", ALIBI), ("relative", RELATIVE), ("absolute", ABSOLUTE)):
        if rx.search(text):
            found.append(name)
    return found


def positions(class_name, is_text, runs_rotary, sub_text_positions, kinds, has_modeling, folder_files):
    """(positions, notes)."""
    notes = []
    if not is_text:
        if sub_text_positions is not None:
            pos, via = sub_text_positions
            return pos, [f"positions of its text sub-config {via}"]
        if VISION.search(class_name) or any(f.startswith(("image_processing", "video_processing")) for f in folder_files):
            return "vision-only", notes
        if AUDIO.search(class_name) or any(f.startswith("feature_extraction") for f in folder_files):
            return "audio-only", notes
        return "unknown", ["no vocab_size and no text sub-config; not recognisably vision or audio"]
    if runs_rotary:
        others = [k for k in kinds if k != "rope"]
        if others:
            notes.append("modeling code also matches: " + ", ".join(others))
        return "rope", notes
    if sub_text_positions is not None:
        pos, via = sub_text_positions
        return pos, [f"positions of its text sub-config {via}"]
    if not has_modeling:
        return "unknown", ["no modeling_*.py in the folder"]
    for kind in ("rope", "alibi", "relative", "absolute"):
        if kind in kinds:
            if kind == "rope":
                notes.append("modeling code applies RoPE but no *RotaryEmbedding class ran on this config")
            others = [k for k in kinds if k != kind]
            if others:
                notes.append("modeling code also matches: " + ", ".join(others))
            return kind, notes
    return "none", notes
