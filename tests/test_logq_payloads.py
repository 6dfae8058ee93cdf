"""logq-hardening's seeded hidden suites (no Docker): what makes a blacklist fail.

Every generated payload must really run code under the shipped tool (it creates
its marker when evaluated), must contain none of the words a blacklist looks
for, and must be rejected by the reference solution; every valid-but-unusual
query must be accepted by the reference solution. Seeds change the payloads.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

TASK = Path(__file__).resolve().parent.parent / "tasks" / "logq-hardening"
BLACKLIST = ("open", "exec", "eval", "system", "import", "__", "compile")
SEEDS = range(8)


def _module(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def modules() -> Iterator[tuple[ModuleType, ModuleType, ModuleType]]:
    sys.path.insert(0, str(TASK / "tests"))
    try:
        yield (
            _module("logq_generate", TASK / "tests" / "generate.py"),
            _module("logq_baseline", TASK / "tests" / "baseline_logq.py"),
            _module("logq_reference", TASK / "solution" / "logq.py"),
        )
    finally:
        sys.path.remove(str(TASK / "tests"))


@pytest.mark.parametrize("seed", SEEDS)
def test_payloads_run_under_eval_dodge_a_blacklist_and_the_reference_rejects_them(
    modules: tuple[ModuleType, ModuleType, ModuleType], seed: int, tmp_path: Path
) -> None:
    gen, baseline, reference = modules
    calls_at = [str(tmp_path / f"c{i}") for i in range(20)]
    shapes_at = [str(tmp_path / f"s{i}") for i in range(20)]
    calls, shapes = gen.injection_payloads(seed, calls_at, shapes_at)
    assert len(calls) == len(shapes) == 20
    records = gen.records(seed + 1, 60)
    for payload, marker in zip(calls + shapes, calls_at + shapes_at, strict=True):
        text = payload.replace(str(tmp_path), "")
        assert not [w for w in BLACKLIST if w in text], payload
        for record in records:
            try:
                baseline.matches(payload, record)
            except baseline.QueryError:
                break
        assert Path(marker).exists(), f"the payload runs nothing under eval: {payload}"
        with pytest.raises(reference.QueryError):
            reference.compile_query(payload)


def test_payloads_differ_between_seeds(
    modules: tuple[ModuleType, ModuleType, ModuleType],
) -> None:
    gen = modules[0]
    markers = ["/m"] * 20
    assert gen.injection_payloads(1, markers, markers) != gen.injection_payloads(
        2, markers, markers
    )
    assert gen.injection_payloads(1, markers, markers) == gen.injection_payloads(
        1, markers, markers
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_unusual_valid_queries_are_accepted_by_the_reference(
    modules: tuple[ModuleType, ModuleType, ModuleType], seed: int
) -> None:
    gen, _, reference = modules
    queries = gen.unusual_queries(seed)
    assert len(queries) == 20
    assert any(w in q for q, _, _ in queries for w in BLACKLIST), "they look suspicious"
    for where, _, _ in queries + gen.basic_queries(seed) + gen.edge_queries(seed):
        if where is not None:
            reference.compile_query(where)
