"""Writes an experiment (dicts, lists, strings, numbers, booleans) as a block-style YAML
file that ssim reads, with no YAML library: every string is double-quoted as JSON
quotes it, which YAML reads the same."""
import json


def _scalar(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    raise TypeError(f"cannot write {type(value).__name__} {value!r} into an experiment file")


def _is_flat(values):
    return all(not isinstance(v, (dict, list, tuple)) for v in values)


def _lines(value, indent):
    pad = " " * indent
    out = []
    if isinstance(value, dict):
        for key, v in value.items():
            k = str(key)
            if isinstance(v, dict) and v:
                out.append(f"{pad}{_scalar(k) if not k.isidentifier() else k}:")
                out.extend(_lines(v, indent + 2))
            elif isinstance(v, (list, tuple)) and v and not _is_flat(v):
                out.append(f"{pad}{_scalar(k) if not k.isidentifier() else k}:")
                out.extend(_lines(list(v), indent + 2))
            else:
                out.append(f"{pad}{_scalar(k) if not k.isidentifier() else k}: {_inline(v)}")
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, dict) and item:
                inner = _lines(item, indent + 2)
                out.append(pad + "- " + inner[0][indent + 2:])
                out.extend(inner[1:])
            else:
                out.append(f"{pad}- {_inline(item)}")
    return out


def _inline(value):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_scalar(str(k))}: {_inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _scalar(value)


def dump(document, header=""):
    text = "\n".join(_lines(document, 0)) + "\n"
    return (header + text) if header else text
