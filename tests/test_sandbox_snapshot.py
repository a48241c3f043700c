"""Snapshots taken from hostile sessions: the session controls everything the saving code runs with (builtins,
modules, the scratch directory), so what it hands back is checked as untrusted data and never unpickled on the host."""
import os, pickle, tempfile

import pytest

from toolcall_lib.interp import Sandbox, SandboxError, Snapshot


@pytest.fixture
def sandbox():
    with Sandbox() as session: yield session


def test_a_forged_manifest_is_refused(sandbox):
    "The session replaces json.dump: the manifest it writes names a dotted 'variable' and a path out of scratch."
    sandbox.run("import json\n_real = json.dump\n"
                "def _forged(obj, f, **kw): _real({'names': ['os.system'], 'imports': [], 'definitions': [], 'lost': []}, f)\n"
                "json.dump = _forged")
    with pytest.raises(SandboxError, match='invalid snapshot.*not a Python name'): sandbox.snapshot()
    assert sandbox.run('1 + 1').value == '2'   # the session goes on


def test_a_planted_symlink_is_not_followed(sandbox):
    "The manifest's name is a symlink to a host file: the host's read refuses it instead of reading the host file."
    sandbox.run("import os\n_open = open\n"
                "def _planting(name, mode='r', *a, **kw):\n"
                "    if name == '.toolcall_snapshot.json' and 'w' in mode:\n"
                "        os.symlink('/etc/passwd', name); return _open(os.devnull, mode)\n"
                "    return _open(name, mode, *a, **kw)\n"
                "open = _planting")   # the saving code runs in the session's namespace, so it gets this open
    with pytest.raises(SandboxError, match='could not be saved'): sandbox.snapshot()


def test_a_session_past_the_size_bound_is_refused(sandbox):
    sandbox.run("open('big.bin', 'wb').write(b'x' * 300_000)")
    with pytest.raises(SandboxError, match='over the 200000 byte limit'): sandbox.snapshot(max_bytes=200_000)
    assert len(sandbox.snapshot(max_bytes=1_000_000).files[0][1]) == 300_000


def test_values_past_the_bound_are_named_as_lost(sandbox):
    sandbox.run("small = 1\nlarge = b'y' * 500_000")
    saved = sandbox.snapshot(max_bytes=100_000)
    assert saved.names == ('small',) and [n for n, _ in saved.lost] == ['large']
    assert 'size limit' in dict(saved.lost)['large']


def test_restoring_a_trap_runs_it_in_the_new_session_only(tmp_path):
    "A pickle built to run code when read (anyone with write access to the store can build one)."
    marker = tmp_path/'ran-on-the-host'
    class Trap:
        def __reduce__(self): return (os.system, (f'touch {marker}',))
    forged = Snapshot(variables=pickle.dumps({'x': pickle.dumps(Trap())}), names=('x',))
    with Sandbox.restore(forged.to_bytes()) as session:
        assert session.restored.variables == ('x',)
    assert not marker.exists()


def test_a_variables_part_that_is_not_a_dict_costs_only_the_variables():
    forged = Snapshot(variables=pickle.dumps(['not', 'a', 'dict']), imports=(('json', 'json'),))
    with Sandbox.restore(forged) as session:
        assert session.restored.imports == ('json',)
        assert session.restored.lost == (('(variables)', 'not a snapshot of variables'),)
        assert session.run('json.dumps(1)').value == "'1'"


def test_restore_takes_the_sandbox_options():
    with Sandbox() as first:
        first.run("import math\ndef area(r): return math.pi * r * r\nradii = [1, 2]")
        saved = first.snapshot()
    with Sandbox.restore(saved, timeout=7, memory_mb=1024) as second:
        assert second.run('round(sum(area(r) for r in radii), 3)').value == '15.708'
        assert (second.timeout, second.limits['memory_mb']) == (7, 1024)


# Snapshot stores: a real, throwaway PostgreSQL server (the `postgres` fixture in conftest.py) and a host directory.
import pickle as _pickle, time, uuid
from toolcall_lib.interp.snapshot import PostgresSnapshots, SnapshotDirectory


def _saved_session(code):
    with Sandbox() as session:
        session.run(code)
        return session.snapshot()


@pytest.fixture(scope='module')
def small_snapshot():
    return _saved_session('rows = [1, 2, 3]\nimport json')


def test_postgres_snapshots_round_trip_and_restore(postgres, small_snapshot):
    store = PostgresSnapshots(postgres.dsn(), table=f't_{uuid.uuid4().hex[:12]}')
    assert store.load('chat-1') == (None, 0)
    store.save('chat-1', small_snapshot, cells=3)
    store.save('chat-2', small_snapshot.to_bytes(), cells=1)
    store.save('chat-1', small_snapshot, cells=4)             # replaces, one row per session
    assert store.keys() == ['chat-1', 'chat-2']
    saved, cells = store.load('chat-1')
    assert cells == 4 and saved == small_snapshot
    elsewhere = _pickle.loads(_pickle.dumps(store))            # as a Ray actor receives it: its own connection
    assert elsewhere._connection is None and elsewhere.load('chat-2')[1] == 1
    with Sandbox.restore(saved) as again: assert again.run('rows, json.dumps(rows)').value == "([1, 2, 3], '[1, 2, 3]')"
    store.delete('chat-1'); store.delete('chat-1')
    assert store.keys() == ['chat-2']
    assert 'dsn' not in repr(store) and postgres.dsn() not in repr(store)
    store.close(); elsewhere.close()


def test_postgres_snapshots_survive_a_closed_connection_and_refuse_big_or_forged_rows(postgres, small_snapshot):
    table = f't_{uuid.uuid4().hex[:12]}'
    store = PostgresSnapshots(postgres.dsn() + '&application_name=snapshot_store', table=table, max_bytes=4096)
    store.save('a', small_snapshot)
    postgres.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'snapshot_store'")
    time.sleep(0.2)
    assert store.load('a')[0] == small_snapshot               # the dead connection is replaced, no error
    store.save('big', Snapshot(files=(('blob.bin', b'x' * 8192),)))
    with pytest.raises(ValueError, match='more than max_bytes=4096'): store.load('big')
    postgres.execute(f"UPDATE \"{table}\" SET snapshot = convert_to('{{\"format\": 1}}', 'UTF8') WHERE key = 'a'")
    with pytest.raises(ValueError, match='snapshot:'): store.load('a')   # written by whoever reached the table: checked
    with pytest.raises(ValueError, match='not a table name'): PostgresSnapshots(postgres.dsn(), table='x"; DROP TABLE y; --')
    store.close()


def test_a_snapshot_directory_is_written_atomically(tmp_path, small_snapshot):
    store = SnapshotDirectory(tmp_path / 'snaps')
    assert oct((tmp_path / 'snaps').stat().st_mode & 0o777) == '0o700'
    store.save('r/1', small_snapshot, cells=2)                  # any id: the file name is its hash
    assert [p.name for p in (tmp_path / 'snaps').iterdir() if p.name.startswith('.saving-')] == []
    with pytest.raises(TypeError): store.save('r/1', 12345)
    assert store.load('r/1') == (small_snapshot, 2)            # a failed save left the last one whole
    (tmp_path / 'snaps' / 'stray.snapshot').write_bytes(b'garbage')
    assert store.keys() == ['r/1']


@pytest.fixture(scope='module')
def s3_server():
    "An S3 server on 127.0.0.1 (moto's, a real HTTP server speaking S3's REST API), for the real boto3 client."
    from moto.server import ThreadedMotoServer
    server = ThreadedMotoServer(ip_address='127.0.0.1', port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield {'endpoint_url': f'http://{host}:{port}', 'region_name': 'us-east-1',
           'aws_access_key_id': 'testing', 'aws_secret_access_key': 'testing'}
    server.stop()


def test_s3_snapshots_round_trip_through_boto3(s3_server, small_snapshot):
    import boto3
    from toolcall_lib.interp.snapshot import S3Snapshots
    boto3.client('s3', **s3_server).create_bucket(Bucket='sessions')
    store = S3Snapshots('sessions', prefix='run-1/', **s3_server)
    assert store.load('chat-1') == (None, 0)
    store.save('chat-1', small_snapshot, cells=2)
    store.save('chät/2', small_snapshot.to_bytes(), cells=5)    # any id: the object's name is its hash
    assert store.keys() == ['chat-1', 'chät/2']
    elsewhere = _pickle.loads(_pickle.dumps(store))             # as a Ray actor receives it: its own client
    saved, cells = elsewhere.load('chat-1')
    assert cells == 2 and saved == small_snapshot
    with Sandbox.restore(saved) as again: assert again.run('rows').value == '[1, 2, 3]'
    store.delete('chat-1'); store.delete('chat-1')
    assert store.keys() == ['chät/2']
    assert 'testing' not in repr(store)


def test_s3_snapshots_refuse_big_or_foreign_objects(s3_server, small_snapshot):
    import boto3
    from toolcall_lib.interp.snapshot import S3Snapshots
    client = boto3.client('s3', **s3_server)
    client.create_bucket(Bucket='hostile')
    store = S3Snapshots('hostile', max_bytes=4096, **s3_server)
    store.save('big', Snapshot(files=(('blob.bin', b'x' * (1 << 20)),)))
    with pytest.raises(ValueError, match='more than max_bytes=4096'): store.load('big')
    name = store._object('a')
    client.put_object(Bucket='hostile', Key=name, Body=b'{"key": "b", "cells": 1}\n' + small_snapshot.to_bytes())
    with pytest.raises(ValueError, match='holds another session'): store.load('a')
    client.put_object(Bucket='hostile', Key=name, Body=b'not a header\n{}')
    with pytest.raises(ValueError, match='not a snapshot file'): store.load('a')
    client.put_object(Bucket='hostile', Key=store.prefix + 'stray.snapshot', Body=b'junk')
    assert store.keys() == ['big']
