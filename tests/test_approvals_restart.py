"""Approvals across a restart: a run stops for a person's decision in one process, that process is killed, and two new
processes resume it at once from the store: a SQLite file, and a real PostgreSQL server (the `postgres` fixture). The
model is the scripted provider (examples/fake_provider.py) on 127.0.0.1, reached with the real openai client; each tool
call appends a line to a file, so the test counts what ran in every process."""
import json, os, signal, subprocess, sys, time, uuid
from pathlib import Path
import pytest

from sdk_clients import server   # noqa: F401 (a fixture)

PROGRAM = r'''
import json, os, sys, time
from openai import OpenAI
from toolcall_lib.approvals import LATER, ApprovalStore, RunAlreadyResumed, RunPaused
from toolcall_lib.loop import Chat
url, where, table, log, role = sys.argv[1:6]

def note(line):
    with open(log, 'a') as file: file.write(line + '\n')

def get_weather(
    city:str, # City name, e.g. "Paris"
) -> str: # The forecast
    "Get today's weather for a city."
    note(f'get_weather {city} {os.getpid()}')
    return f'Sunny in {city}'

def place_order(
) -> str: # The order number
    "Order an umbrella."
    note(f'place_order {os.getpid()}')
    return 'order-1'

store = ApprovalStore(where, table=table) if where.startswith('postgresql://') else ApprovalStore(where)
chat = Chat(OpenAI(base_url=url, api_key='test', max_retries=0), [get_weather, place_order], model='m', approvals=store,
            approve=lambda call: LATER if call.name == 'place_order' else True)
if role == 'start':
    try: chat('Weather in Paris? If it rains, place_order')
    except RunPaused as paused: print('paused', paused.state.run_id, flush=True)
    time.sleep(600)   # killed here, with the state in the store
else:
    run_id = role
    print('ready', flush=True)
    sys.stdin.readline()   # both resumers start together
    decisions = [call.approve() for call in store.load(run_id).waiting]
    try: print('answer', json.dumps(chat.resume(run_id, decisions)), flush=True)
    except RunAlreadyResumed: print('already', flush=True)
'''

def start(program:Path, *arguments) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(program), *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

def read_line(process:subprocess.Popen) -> str:
    line = process.stdout.readline()
    if not line: raise AssertionError(f'the process ended early: {process.wait(30)} {process.stderr.read()}')
    return line.strip()

def stop_kill_resume(tmp_path:Path, server, where:str, table:str='') -> tuple:
    "(outcomes of the two resumes, the lines of the tools' log)."
    program, log = tmp_path/'program.py', tmp_path/'calls.log'
    program.write_text(PROGRAM)
    first = start(program, server.openai_url, where, table, str(log), 'start')
    try:
        said = read_line(first)
        assert said.startswith('paused '), said
        run_id = said.split()[1]
    finally:
        first.send_signal(signal.SIGKILL)   # no clean shutdown: the store holds what was committed before the stop
        first.wait(30)
    assert first.returncode == -signal.SIGKILL
    resumers = [start(program, server.openai_url, where, table, str(log), run_id) for _ in range(2)]
    try:
        for process in resumers: assert read_line(process) == 'ready'
        for process in resumers: process.stdin.write('go\n'); process.stdin.flush()
        outcomes = sorted(read_line(process) for process in resumers)
        for process in resumers: assert process.wait(60) == 0, process.stderr.read()
    finally:
        for process in resumers:
            if process.poll() is None: process.kill(); process.wait(30)
    return outcomes, log.read_text().splitlines(), first.pid

def check(outcomes:list, calls:list, first_pid:int):
    already, answer = outcomes   # sorted: 'already' < 'answer ...'
    assert already == 'already', outcomes
    text = json.loads(answer.removeprefix('answer '))
    assert 'Sunny in Paris' in text and 'order-1' in text, text
    assert [line.split()[0] for line in calls] == ['get_weather', 'place_order'], calls   # each call once, in all processes
    assert calls[0] == f'get_weather Paris {first_pid}' and not calls[1].endswith(str(first_pid))   # the order ran after the restart

def test_stop_kill_and_resume_from_sqlite(tmp_path, server):
    outcomes, calls, first_pid = stop_kill_resume(tmp_path, server, str(tmp_path/'approvals.db'))
    check(outcomes, calls, first_pid)

def test_stop_kill_and_resume_from_postgresql(tmp_path, server, postgres):
    outcomes, calls, first_pid = stop_kill_resume(tmp_path, server, postgres.dsn(), f'approvals_{uuid.uuid4().hex[:8]}')
    check(outcomes, calls, first_pid)
