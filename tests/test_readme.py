"""README.md stays in step with nbs/index.ipynb; it opens with the two commands of a checkout, each labelled and in a
block of its own so a copy button copies one (the user's installs the library and runs its main job, the developer's
installs the dev tools and runs every test; CI runs the second), then a first call that works from an install."""
import os, re, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT/'tools'))
from sync_readme import render_readme

README = ROOT/'README.md'


def sh_blocks(text: str) -> list:
    "The commands of each fenced shell block of `text`, in order (comment lines and blank lines left out)"
    return [[line for line in block.splitlines() if line.strip() and not line.lstrip().startswith('#')]
            for block in re.findall(r'```sh\n(.*?)```', text, re.S)]


def opening_commands() -> list:
    "The user's command and the developer's: the one command of each of the README's first two shell blocks"
    blocks = sh_blocks(README.read_text(encoding='utf-8'))[:2]
    assert [len(block) for block in blocks] == [1, 1], f'each opening block holds one command, alone: {blocks}'
    return [block[0] for block in blocks]


def test_readme_is_rendered_from_index_notebook():
    assert README.read_text(encoding='utf-8') == render_readme(), 'run: python tools/sync_readme.py'


def test_readme_opens_with_the_commands_then_a_first_call():
    text = README.read_text(encoding='utf-8')
    second = text.index('```sh', text.index('```sh') + 1)
    assert second < text.index('```python'), 'the commands must come before any example'
    assert second < text.index('\n## '), 'the commands open the README, before its first section'
    for path in ('examples/replies/openai_chat.json', 'examples/weather_tools.py', 'tools/ensure_chromium', 'tools/ensure_postgres'):
        assert path in ' '.join(opening_commands()) and (ROOT/path).exists(), path


def test_first_call_works_from_an_install(tmp_path):
    "The README's first Python block runs as it is, outside the checkout (as a user who only ran pip install would)"
    text = README.read_text(encoding='utf-8')
    first = re.search(r'```python\n(.*?)```', text, re.S).group(1)
    done = subprocess.run([sys.executable, '-c', first], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_readme_opens_with_two_commands():
    commands = opening_commands()
    assert len(commands) == 2, commands
    assert 'pip install .' in commands[0] and 'toolcall ' in commands[0]
    text = README.read_text(encoding='utf-8')
    assert text.index('**Use it**') < text.index(commands[0]) < text.index('**Develop it**') < text.index(commands[1])
    assert "'.[dev]'" in commands[1] and 'nbdev_test' in commands[1] and 'pytest' in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT/'.ci'/'run').read_text(encoding='utf-8')
    assert opening_commands()[1] in ci
    assert os.access(ROOT/'.ci'/'run', os.X_OK)
    assert 'set -euo pipefail' in ci
