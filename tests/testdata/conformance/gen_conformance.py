"""Generate the conformance golden files: what upstream mini-swe-agent (Python) sends and records
for our built-in configs and the scripted replies in this folder. Run by hand:

    python3 tests/testdata/conformance/gen_conformance.py /path/to/mini-swe-agent/src

It needs pydantic, jinja2, pyyaml and requests; upstream's other imports (litellm, rich, tenacity,
platformdirs) are replaced by inert stand-ins, since the OpenRouter model class talks plain HTTP.
Each scenario serves the replies from `deno run -A tests/fake_server.ts` and runs upstream's
DefaultAgent + LocalEnvironment + the model class that upstream's own `get_model` builds for the
scenario's model name and class (so its defaults apply, e.g. prompt-cache markers for Claude names).
Machine-specific values (uname fields, the working directory) are replaced by placeholders. Besides the golden requests and
messages it keeps upstream's own trajectory file of each scenario (`<scenario>_upstream.traj.json`,
written by upstream's `agent.save()`), which the trajectory library must read as it reads claudius's.
"""
import json
import os
import platform
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
UPSTREAM = Path(sys.argv[1]).resolve()
# (golden name, our config, replies, upstream model class, model name)
SCENARIOS = [
    ("toolcall", "default.yaml", "toolcall_replies.yaml", "openrouter", "test-model"),
    ("text", "textbased.yaml", "text_replies.yaml", "openrouter_textbased", "test-model"),
    ("claude_toolcall", "default.yaml", "toolcall_replies.yaml", "openrouter", "anthropic/claude-sonnet-4-5"),
    ("claude_text", "textbased.yaml", "text_replies.yaml", "openrouter_textbased", "anthropic/claude-sonnet-4-5"),
    ("openrouter_response", "default.yaml", "toolcall_replies.yaml", "openrouter_response", "test-model"),
    ("litellm_response", "default.yaml", "toolcall_replies.yaml", "litellm_response", "test-model"),
]
TASK = "Fix the failing test in this repository."
# The scenarios whose upstream trajectory file the trajectory tools' tests read.
UPSTREAM_TRAJECTORIES = {"toolcall", "text"}


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class _Attempt:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Retrying:
    def __init__(self, **kwargs):
        pass

    def __iter__(self):
        yield _Attempt()


class _Console:
    def __init__(self, *a, **k):
        pass

    def print(self, *a, **k):
        pass


import logging  # noqa: E402

stub("tenacity", Retrying=_Retrying, before_sleep_log=lambda *a, **k: None,
     retry_if_not_exception_type=lambda *a, **k: None, stop_after_attempt=lambda *a, **k: None,
     wait_exponential=lambda *a, **k: None)
stub("rich")
stub("rich.console", Console=_Console)
stub("rich.logging", RichHandler=lambda *a, **k: logging.NullHandler())
stub("platformdirs", user_config_dir=lambda name: tempfile.mkdtemp())
class _LitellmResponse:
    """What litellm.responses() returns: attribute access plus model_dump()."""

    def __init__(self, data):
        self.__dict__.update(data)
        self._data = data

    def model_dump(self, mode=None):
        return json.loads(json.dumps(self._data))


class _LitellmError(Exception):
    pass


LITELLM_URL = {}


def _litellm_responses(**kwargs):
    # The request litellm would send to an OpenAI-compatible /responses endpoint: its arguments.
    import requests
    r = requests.post(LITELLM_URL["url"] + "/responses", data=json.dumps(kwargs),
                      headers={"Content-Type": "application/json"}, timeout=60)
    r.raise_for_status()
    return _LitellmResponse(r.json())


litellm = stub("litellm", responses=_litellm_responses)
litellm.exceptions = stub("litellm.exceptions", **{name: type(name, (_LitellmError,), {}) for name in [
    "UnsupportedParamsError", "NotFoundError", "PermissionDeniedError", "ContextWindowExceededError",
    "AuthenticationError"]})
litellm.cost_calculator = stub("litellm.cost_calculator",
                               completion_cost=lambda response, model=None: response._data["usage"]["cost"])
litellm.utils = stub("litellm.utils", register_model=lambda *a, **k: None)
os.environ["MSWEA_SILENT_STARTUP"] = "1"
sys.path.insert(0, str(UPSTREAM))

import yaml  # noqa: E402
from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.environments.local import LocalEnvironment  # noqa: E402
from minisweagent.models import get_model  # noqa: E402


def placeholders(text, cwd):
    u = platform.uname()
    for value, name in [(cwd, "<CWD>"), (u.version, "<VERSION>"), (u.release, "<RELEASE>"), (u.node, "<NODE>")]:
        text = text.replace(value, name)
    return text


for name, config_file, replies, model_class, model_name in SCENARIOS:
    config = yaml.safe_load((ROOT / "config" / config_file).read_text())
    log = Path(tempfile.mkdtemp()) / "requests.jsonl"
    server = subprocess.Popen(
        ["deno", "run", "-A", str(HERE / "record_server.ts"), str(HERE / replies), str(log)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    url = server.stdout.readline().strip()
    cwd = tempfile.mkdtemp()
    try:
        model_config = {k: v for k, v in config["model"].items() if k != "model_class"}
        model = get_model(model_name, {**model_config, "model_class": model_class})
        model._api_url = url + ("/responses" if model_class.endswith("_response") else "/chat/completions")
        LITELLM_URL["url"] = url
        env_config = {k: v for k, v in config["environment"].items() if k != "environment_class"}
        env = LocalEnvironment(**{**env_config, "cwd": cwd, "timeout": 2})
        agent = DefaultAgent(model, env, **config["agent"])
        result = agent.run(TASK)
    finally:
        server.terminate()
        server.wait()
    if name in UPSTREAM_TRAJECTORIES:
        traj = Path(tempfile.mkdtemp()) / "upstream.traj.json"
        agent.save(traj)  # upstream's own trajectory file, as its runners write it
        text = placeholders(traj.read_text(), cwd)
        (HERE / f"{name}_upstream.traj.json").write_text(text + "\n", encoding="utf-8")
    messages = agent.messages
    for m in messages:
        m.get("extra", {}).pop("timestamp", None)
    requests = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    golden = {"task": TASK, "model_class": model_class, "model_name": model_name, "config": config_file,
              "replies": replies, "result": result, "messages": messages, "requests": requests}
    text = placeholders(json.dumps(golden, indent=1, ensure_ascii=False), cwd)
    (HERE / f"{name}_golden.json").write_text(text + "\n", encoding="utf-8")
    print(f"{name}: {len(messages)} messages, {len(requests)} requests, {result['exit_status']}")

# Upstream's cache-control marking on its own, for message shapes the scenarios do not reach.
from minisweagent.models.utils.cache_control import set_cache_control  # noqa: E402

EPH = {"type": "ephemeral"}
CACHE_CASES = [
    [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    [{"role": "user", "content": "u"}, {"role": "assistant", "content": None, "tool_calls": []}],
    [{"role": "user", "content": "u"}, {"content": "out", "tool_call_id": "c1", "role": "tool"}],
    [{"role": "user", "content": "u"}, {"content": None, "tool_call_id": "c1", "role": "tool"}],
    [{"role": "user", "content": ""}],
    [{"role": "user", "content": "old", "cache_control": EPH},
     {"role": "user", "content": [{"type": "text", "text": "older", "cache_control": EPH}]},
     {"role": "assistant", "content": "a", "reasoning_content": "r"}],
    [{"role": "user", "content": [{"type": "text", "text": "part"}]}],
    [{"content": [{"type": "text", "text": "t", "cache_control": EPH}], "tool_call_id": "c", "role": "tool",
      "cache_control": EPH}],
]
cache_golden = [{"messages": case, "default_end": set_cache_control(case, mode="default_end"),
                 "none": set_cache_control(case, mode=None)} for case in CACHE_CASES]
(HERE / "cache_control_golden.json").write_text(json.dumps(cache_golden, indent=1) + "\n", encoding="utf-8")
print(f"cache_control: {len(cache_golden)} cases")
