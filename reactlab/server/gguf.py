"""Read the metadata block at the start of a GGUF model file (the chat template lives there).

A GGUF file starts with `GGUF`, a version, the tensor and key/value counts, then typed
key/value pairs such as `general.name` or `tokenizer.chat_template`. Reading them takes
~0.1 s and never loads a weight, so the server can show and check the template before the
engine starts.

This module does not read tensors, write GGUF files, or support GGUF v1 (2023, unused now).
Introduced in notebook 06 ("under the hood": the template ships inside the model file).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

# GGUF value types -> struct format (8 = string and 9 = array are handled apart).
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9


class GGUFError(ValueError):
    """The file is not a GGUF model we can read; the message names the file and the problem."""


def _unpack(f: BinaryIO, fmt: str):
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise EOFError
    return struct.unpack(fmt, data)[0]


def _string(f: BinaryIO) -> str:
    n = _unpack(f, "<Q")
    data = f.read(n)
    if len(data) != n:
        raise EOFError
    return data.decode("utf-8", errors="replace")


def _value(f: BinaryIO, vtype: int, keep: bool):
    if vtype == _STRING:
        return _string(f)
    if vtype == _ARRAY:
        item_type, count = _unpack(f, "<I"), _unpack(f, "<Q")
        if item_type in _SCALARS and not keep:  # skip fixed-size arrays (token types) in one seek
            f.seek(struct.calcsize(_SCALARS[item_type]) * count, 1)
            return f"<array of {count}>"
        items = [_value(f, item_type, keep) for _ in range(count)]
        return items if keep else f"<array of {count}>"
    if vtype not in _SCALARS:
        raise GGUFError(f"unknown GGUF value type {vtype}")
    return _unpack(f, _SCALARS[vtype])


def read_metadata(path: str | Path, keep_arrays: bool = False) -> dict:
    """All key/value pairs of a GGUF file; big arrays (the vocabulary) are summarised.

    Example: read_metadata(gguf)["general.name"] -> "Qwen2.5 Coder 1.5B Instruct GGUF"
    """
    path = Path(path)
    try:
        with open(path, "rb") as f:
            if f.read(4) != b"GGUF":
                raise GGUFError(f"{path} is not a GGUF model file (it does not start with 'GGUF').")
            version = _unpack(f, "<I")
            if version < 2:
                raise GGUFError(f"{path} is GGUF version {version}; only versions 2 and 3 are read.")
            _unpack(f, "<Q")  # tensor count: not needed for metadata
            meta = {}
            for _ in range(_unpack(f, "<Q")):
                key = _string(f)
                meta[key] = _value(f, _unpack(f, "<I"), keep_arrays)
            return meta
    except EOFError:
        raise GGUFError(f"{path} ends inside its metadata block: the model file is truncated "
                        f"or corrupt.") from None
    except OSError as exc:
        raise GGUFError(f"Cannot read the model file {path}: {exc.strerror or exc}.") from None


def chat_template(path: str | Path) -> str:
    """The Jinja chat template embedded in a GGUF file (`tokenizer.chat_template`).

    Example: chat_template(gguf).startswith("{%- if tools %}") -> True for Qwen2.5
    """
    template = read_metadata(path).get("tokenizer.chat_template")
    if not isinstance(template, str) or not template.strip():
        raise GGUFError(f"{path} has no tokenizer.chat_template in its metadata.")
    return template
