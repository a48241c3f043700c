"""RaySandboxPool on a real two-node Ray cluster on this machine (Ray's own test cluster: a head and a second node,
each its own raylet and object store): sessions spread over the nodes, one node is killed while they are in use,
and every session carries on from its snapshot on the node that is left. Nothing is left running afterwards."""
import asyncio, subprocess, time

import pytest

import ray
from ray.cluster_utils import Cluster

from toolcall_lib.ray_pool import RaySandboxPool


@pytest.fixture
def cluster():
    cluster = Cluster(initialize_head=True, head_node_args={'num_cpus': 1})
    worker = cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, namespace='toolcall_lib', log_to_driver=False)
    for _ in range(100):   # the driver's view of the cluster catches up with both raylets
        if sum(node['Alive'] for node in ray.nodes()) == 2: break
        time.sleep(0.1)
    try: yield cluster, worker
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_sessions_survive_losing_their_node(cluster):
    cluster, worker = cluster
    pool = RaySandboxPool(max_sessions=6, name='test_survive')   # room for all six on the node that is left
    chats = [f'rollout-{i}' for i in range(6)]
    for i, chat in enumerate(chats):
        assert pool.run(chat, f'n = {i}\nhistory = [n]').ok
    homes = {chat: pool.node_of(chat) for chat in chats}
    assert set(homes.values()) == {cluster.head_node.node_id, worker.node_id}   # spread over both nodes
    assert sorted(pool.sessions()) == sorted(chats)
    on_worker = [chat for chat in chats if homes[chat] == worker.node_id]
    cluster.remove_node(worker)                          # the node's processes are killed
    told = []
    for chat in chats:
        i, first = chats.index(chat), pool.run(chat, 'history.append(n * 10); history')
        if chat in on_worker and first.state_lost:      # the call that found the node dead: told so, its cell not run
            assert 'restored on another machine' in first.error
            told.append(chat)
            assert pool.run(chat, 'history').value == f'[{i}]'
        else:                                            # the cell ran; a session restored first says so in a note
            assert first.value == f'[{i}, {i * 10}]', first
            assert (chat in on_worker) == any('restored on another machine' in note for note in first.notes), first.notes
        assert pool.node_of(chat) == cluster.head_node.node_id
    assert told == on_worker[:1]                          # one call finds the node gone; the others are restored before theirs
    pool.close()


def test_async_runs_files_and_a_second_driver_see_the_same_sessions(cluster):
    pool = RaySandboxPool(max_sessions=4, name='test_shared')
    async def two():
        return await asyncio.gather(pool.run_async('a', 'x = 1; x'), pool.run_async('b', 'y = 2; y'))
    assert [r.value for r in asyncio.run(two())] == ['1', '2']
    pool.write_file('a', 'data.csv', b'k,v\n1,2\n')
    other = RaySandboxPool(max_sessions=4, name='test_shared')      # another pool object: same directory, same sessions
    assert other.run('a', 'open("data.csv").read()').value == "'k,v\\n1,2\\n'"
    assert 'data.csv' in other.files('a')
    other.close_session('b')
    assert sorted(pool.sessions()) == ['a']
    pool.close()


def test_refusals_are_clear(cluster):
    with pytest.raises(ValueError, match='max_sessions'): RaySandboxPool(max_sessions=0, name='x')
    with pytest.raises(ValueError, match='snapshot_every'): RaySandboxPool(snapshot_every=0, name='x')
    with pytest.raises(ValueError, match='snapshot_interval'): RaySandboxPool(snapshot_interval=-1, name='x')
    with pytest.raises(TypeError, match='save, load and delete'): RaySandboxPool(snapshot_store={}, name='x')
    pool = RaySandboxPool(max_sessions=1, name='test_full')
    pool.run('one', '1'); pool.run('two', '2')                       # one per node
    with pytest.raises(Exception, match='no node of the cluster has room'): pool.run('three', '3')
    pool.close()


def test_a_node_writes_snapshots_to_postgresql_and_a_lost_node_comes_back_from_there(cluster, postgres):
    "With a PostgreSQL store the nodes write each snapshot there; a session of a removed node is restored from the table."
    import uuid
    from toolcall_lib.interp.snapshot import PostgresSnapshots
    cluster, worker = cluster
    store = PostgresSnapshots(postgres.dsn(), table=f'ray_{uuid.uuid4().hex[:12]}')
    pool = RaySandboxPool(max_sessions=4, name='test_store', snapshot_store=store)
    for chat in ('p', 'q'): assert pool.run(chat, f'name = {chat!r}; seen = [name]').ok
    assert pool.run('p', 'seen.append(2)').ok
    assert sorted(store.keys()) == ['p', 'q'] and store.load('p')[1] == 2
    on_worker = next(chat for chat in ('p', 'q') if pool.node_of(chat) == worker.node_id)
    cluster.remove_node(worker)
    lost = pool.run(on_worker, 'seen')
    assert lost.state_lost and 'from its snapshot after cell' in lost.error
    assert pool.run(on_worker, 'name, seen').value == ("('p', ['p', 2])" if on_worker == 'p' else "('q', ['q'])")
    pool.close()
    assert store.keys() == []
    store.close()


def test_snapshots_by_interval(cluster):
    "snapshot_every=None, snapshot_interval=0.5: quick cells share one snapshot until half a second has passed."
    from toolcall_lib.interp.snapshot import SnapshotDirectory
    import tempfile
    store = SnapshotDirectory(tempfile.mkdtemp())
    pool = RaySandboxPool(max_sessions=4, name='test_interval', snapshot_every=None, snapshot_interval=0.5, snapshot_store=store)
    for i in range(3): assert pool.run('s', f'i = {i}').ok
    assert store.load('s') == (None, 0)                  # under half a second since its first cell: none yet
    time.sleep(0.6)
    assert pool.run('s', 'i = 3').ok
    saved, cells = store.load('s')
    assert cells == 4 and saved is not None
    assert pool.run('s', 'i = 4').ok
    assert store.load('s')[1] == 4                       # the next one waits for the next half second
    pool.close()


def test_nothing_is_left_running():
    "After the fixtures' shutdowns, no raylet or GCS of these tests remains."
    leftover = subprocess.run(['pgrep', '-f', 'raylet|gcs_server'], capture_output=True, text=True).stdout.split()
    assert leftover == [], leftover
