"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, run on Node.js 22) against
`toolcall mcp serve tests/conformance/everything_server.py --http`: every server scenario of its active suite,
for the 0.1.16 suite and a 0.2.0 alpha, with no expected failures. `tools/ensure_conformance` installs both suites
into .conformance/ (`.ci/run` calls it)."""
import json, platform, subprocess, sys
from pathlib import Path

import pytest

from test_mcp import http_server

ROOT = Path(__file__).resolve().parent.parent
SUITES = ROOT/'.conformance'
NODE = SUITES/'node'/'node_modules'/f'node-linux-{"arm64" if platform.machine() in ("aarch64", "arm64") else "x64"}'/'bin'/'node'
SCRIPT = str(Path(sys.executable).parent/'toolcall')
FIXTURE = 'tests/conformance/everything_server.py'

def suite(version:str) -> Path:
    "The conformance suite's command-line script for `version`; a failure saying how to install it when it is missing."
    script = SUITES/f'suite-{version}'/'node_modules'/'@modelcontextprotocol'/'conformance'/'dist'/'index.js'
    if not (NODE.exists() and script.exists()): pytest.fail(f'the MCP conformance suite {version} is not installed: run tools/ensure_conformance')
    return script

def served_fixture():
    "`toolcall mcp serve` of the fixture module over HTTP on 127.0.0.1 (test_mcp's server runner); yields its URL."
    return http_server('serve', FIXTURE)

def run_server_scenarios(version:str, tmp_path:Path, *options) -> dict:
    "Scenario name -> [failed check ids], from running the suite's server scenarios against the fixture."
    script = suite(version)
    with served_fixture() as url:
        run = subprocess.run([str(NODE), str(script), 'server', '--url', url, '-o', str(tmp_path), *options],
                             capture_output=True, text=True, timeout=900, cwd=tmp_path)
    results = {}
    for checks in tmp_path.glob('server-*/checks.json'):
        scenario = checks.parent.name[len('server-'):].rsplit('-', 6)[0]   # the folder ends in a timestamp, 2026-12-02T13-33-01-467Z
        results[scenario] = [check['id'] for check in json.loads(checks.read_text()) if check['status'] == 'FAILURE']
    assert results, f'the suite ran no scenario: {run.stdout[-2000:]} {run.stderr[-2000:]}'
    failed = {scenario: ids for scenario, ids in results.items() if ids}
    assert not failed and run.returncode == 0, f'failed scenarios: {failed}\n{run.stdout[-3000:]}\n{run.stderr[-2000:]}'
    return results

SERVER_SCENARIOS_0_1_16 = {
    'server-initialize', 'logging-set-level', 'ping', 'completion-complete', 'tools-list', 'tools-call-simple-text',
    'tools-call-image', 'tools-call-audio', 'tools-call-embedded-resource', 'tools-call-mixed-content', 'tools-call-with-logging',
    'tools-call-error', 'tools-call-with-progress', 'tools-call-sampling', 'tools-call-elicitation', 'elicitation-sep1034-defaults',
    'server-sse-multiple-streams', 'elicitation-sep1330-enums', 'resources-list', 'resources-read-text', 'resources-read-binary',
    'resources-templates-read', 'resources-subscribe', 'resources-unsubscribe', 'prompts-list', 'prompts-get-simple',
    'prompts-get-with-args', 'prompts-get-embedded-resource', 'prompts-get-with-image', 'dns-rebinding-protection'}

def test_every_active_server_scenario_of_0_1_16_passes(tmp_path):
    assert set(run_server_scenarios('0.1.16', tmp_path)) == SERVER_SCENARIOS_0_1_16

def test_json_schema_2020_12_scenario_of_0_1_16_passes(tmp_path):
    "A pending scenario in 0.1.16: the tool's own schema (`mcp_tool(input_schema=...)`) arrives with `$schema`, `$defs` and `additionalProperties`."
    assert set(run_server_scenarios('0.1.16', tmp_path, '--scenario', 'json-schema-2020-12')) == {'json-schema-2020-12'}

def test_every_active_server_scenario_of_0_2_0_alpha_passes(tmp_path):
    ran = run_server_scenarios('0.2.0-alpha.12', tmp_path)
    assert SERVER_SCENARIOS_0_1_16 <= set(ran) and 'server-session-lifecycle' in ran

# --- client scenarios: tests/conformance/everything_client.py, which connects with `mcp_tools` ---------------------

CLIENT_SCENARIOS_0_1_16 = [
    'initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry',
    'auth/metadata-default', 'auth/metadata-var1', 'auth/metadata-var2', 'auth/metadata-var3', 'auth/basic-cimd',
    'auth/scope-from-www-authenticate', 'auth/scope-from-scopes-supported', 'auth/scope-omitted-when-undefined',
    'auth/scope-step-up', 'auth/scope-retry-limit', 'auth/token-endpoint-auth-basic', 'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none', 'auth/pre-registration']

def run_client_scenario(version:str, scenario:str, tmp_path:Path) -> list:
    "The failed (or warned) checks of one client scenario, `mcp_tools` being the client; one at a time, as two cores run a client in ~10 s."
    client = f'{sys.executable} {ROOT/"tests"/"conformance"/"everything_client.py"}'
    run = subprocess.run([str(NODE), str(suite(version)), 'client', '--command', client, '--scenario', scenario, '--timeout', '90000',
                          '-o', str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    checks = [check for path in tmp_path.rglob('checks.json') for check in json.loads(path.read_text())]
    assert checks, f'{scenario}: no checks were written: {run.stdout[-2000:]} {run.stderr[-2000:]}'
    return [f"{check['id']}: {check.get('errorMessage') or check.get('description')}" for check in checks if check['status'] in ('FAILURE', 'WARNING')]

@pytest.mark.parametrize('scenario', CLIENT_SCENARIOS_0_1_16)
def test_client_scenario_of_0_1_16_passes(scenario, tmp_path):
    assert run_client_scenario('0.1.16', scenario, tmp_path) == []
