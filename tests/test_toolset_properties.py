"""Property tests: GlobPattern agrees with a regex reference; every memory backend (in memory, SQLite, PostgreSQL) behaves
like a plain dict model."""
import re, tempfile, uuid
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from toolcall_lib.toolset import GlobPattern, InMemoryBackend, MemoryRecord, PostgresBackend, SQLiteBackend


def reference_match(pattern: str, text: str) -> bool:
    "The glob as a regex (`*` -> `.*`, `?` -> `.`), searched anywhere: slow in general, fine on these tiny inputs."
    regex = ''.join('.*' if char == '*' else '.' if char == '?' else re.escape(char) for char in pattern)
    return re.search(regex, text, re.IGNORECASE | re.DOTALL) is not None


@settings(max_examples=400, deadline=None)
@given(pattern=st.text(alphabet='ab*?.', min_size=1, max_size=8).filter(lambda p: p.strip('*')),
       text=st.text(alphabet='abAB.\n', max_size=14))
def test_glob_pattern_agrees_with_the_regex_reference(pattern, text):
    assert GlobPattern(pattern).search(text) == reference_match(pattern, text)


KEYS = st.sampled_from(['a', 'b', 'c', 'B', 'key with spaces', 'ключ', 'é', '😀'])   # upper case and non-ASCII test the key order
VALUES = st.text(st.characters(blacklist_characters='\x00', blacklist_categories=('Cs',)), max_size=5)   # MemoryToolset refuses NUL for every backend
TAGS = st.lists(st.sampled_from(['x', 'y', 'z']), max_size=3, unique=True).map(tuple)
OPERATIONS = st.lists(st.one_of(
    st.tuples(st.just('put'), KEYS, VALUES, TAGS),
    st.tuples(st.just('update'), KEYS, VALUES, st.none() | TAGS),
    st.tuples(st.just('get'), KEYS, st.booleans()),
    st.tuples(st.just('delete'), KEYS),
    st.tuples(st.just('clear'),),
), max_size=25)


def apply_to_model(model: dict, operation, now: float):
    "What a backend must do, written against a plain dict of MemoryRecords."
    kind, *args = operation
    if kind == 'put':
        key, value, tags = args
        old = model.get(key)
        model[key] = MemoryRecord(key, value, tags, old.created_at if old else now, now, old.access_count if old else 0)
        return model[key], old is None
    if kind == 'update':
        key, value, tags = args
        old = model.get(key)
        if old is None: return None
        model[key] = MemoryRecord(key, value, old.tags if tags is None else tags, old.created_at, now, old.access_count)
        return model[key]
    if kind == 'get':
        key, touch = args
        old = model.get(key)
        if old is not None and touch:
            model[key] = old = MemoryRecord(old.key, old.value, old.tags, old.created_at, old.updated_at, old.access_count + 1)
        return old
    if kind == 'delete': return model.pop(args[0], None) is not None
    removed = len(model); model.clear(); return removed


def apply_to_backend(backend, operation, now: float):
    kind, *args = operation
    if kind in ('put', 'update'): return getattr(backend, kind)(*args, now)
    return getattr(backend, kind)(*args)


@pytest.fixture(scope='module')
def postgres_backend(postgres):
    "One PostgresBackend for the module's examples; each example starts by emptying it."
    with PostgresBackend(postgres.dsn(), table=f'property_{uuid.uuid4().hex[:12]}') as backend: yield backend


@settings(max_examples=60, deadline=None)
@given(operations=OPERATIONS)
def test_backends_behave_like_a_dict(operations, postgres_backend):
    postgres_backend.clear()
    with tempfile.TemporaryDirectory() as scratch:
        backends = [InMemoryBackend(), SQLiteBackend(Path(scratch) / 'property.db', synchronous='NORMAL'), postgres_backend]
        model = {}
        for step, operation in enumerate(operations):
            expected = apply_to_model(model, operation, float(step))
            for backend in backends:
                assert apply_to_backend(backend, operation, float(step)) == expected, (type(backend).__name__, operation)
        for backend in backends:
            assert list(backend.records()) == [model[key] for key in sorted(model)]
            assert backend.count() == len(model)
        backends[1].close()
