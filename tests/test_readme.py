"""README.md stays in step with nbs/index.ipynb; it opens (as the package index page does) with the install command
and a first call that works from an install; its "Developing" section opens with the two set-up commands of a
checkout, and CI runs the second of them."""
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


def developing_commands() -> list:
    "The commands in the first shell block of the README's Developing section"
    text = README.read_text(encoding='utf-8')
    return sh_blocks(text[text.index('\n## Developing\n'):])[0]


def test_readme_is_rendered_from_index_notebook():
    assert README.read_text(encoding='utf-8') == render_readme(), 'run: python tools/sync_readme.py'


def test_readme_opens_with_pip_install_and_a_first_call():
    text = README.read_text(encoding='utf-8')
    assert text.index('```sh') < text.index('```python'), 'the install command must come before any example'
    assert sh_blocks(text)[0] == ['pip install toolcall_lib']
    before_developing = text[:text.index('\n## Developing\n')]
    assert 'examples/' not in ''.join(''.join(block) for block in sh_blocks(before_developing))   # checkout-only paths come later
    assert 'tools/' not in ''.join(''.join(block) for block in sh_blocks(before_developing))


def test_first_call_works_from_an_install(tmp_path):
    "The README's first Python block runs as it is, outside the checkout (as a user who only ran pip install would)"
    text = README.read_text(encoding='utf-8')
    first = re.search(r'```python\n(.*?)```', text, re.S).group(1)
    done = subprocess.run([sys.executable, '-c', first], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_developing_opens_with_two_commands():
    commands = developing_commands()
    assert len(commands) == 2, commands
    assert 'pip install .' in commands[0] and 'toolcall ' in commands[0]
    assert "'.[dev]'" in commands[1] and 'nbdev_test' in commands[1] and 'pytest' in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT/'.ci'/'run').read_text(encoding='utf-8')
    assert developing_commands()[1] in ci
    assert os.access(ROOT/'.ci'/'run', os.X_OK)
    assert 'set -euo pipefail' in ci
