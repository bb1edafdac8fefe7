"""Generate the interactive golden files: what upstream mini-swe-agent's InteractiveAgent (Python)
shows, asks and records when a user types the inputs of each scenario in scenarios.yaml. Run by hand:

    python3 tests/testdata/interactive/gen_interactive.py /path/to/mini-swe-agent/src

Needs pydantic, jinja2, pyyaml, requests and python-dotenv. Upstream's terminal libraries are replaced
by inert stand-ins that record instead of drawing: rich's console keeps the plain text of what is
printed (markup removed), prompt_toolkit's prompts return the scenario's inputs in order ("<C-c>"
raises KeyboardInterrupt, as Ctrl-C at a prompt does). Ctrl-C while waiting for the model (a `stall`
reply) or while a command runs (`sleep 7`) is a real SIGINT-like KeyboardInterrupt raised by a timer
in the middle of the blocking call. Each scenario serves its replies from tests/fake_server.ts and
records every request body, every message and the transcript: a list of [kind, text] with kind `ui`
(prompts and notices), `in` (what the user typed) or `msg` (a message shown as it is appended).
"""
import json
import logging
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
UPSTREAM = Path(sys.argv[1]).resolve()
TASK = "Fix the failing test in this repository."

transcript: list[list[str]] = []
inputs: list[str] = []
showing = [False]


def record(kind: str, text: str) -> None:
    if transcript and transcript[-1][0] == kind and kind != "in":
        transcript[-1][1] += text
    else:
        transcript.append([kind, text])


MARKUP = re.compile(r"\[/?[a-z ]*\]")


class _Console:
    def __init__(self, *a, **k):
        pass

    def print(self, *objects, end="\n", markup=True, **k):
        text = " ".join("" if isinstance(o, _Rule) else str(o) for o in objects)
        if isinstance(objects[0] if objects else None, _Rule):
            return
        record("msg" if showing[0] else "ui", (MARKUP.sub("", text) if markup else text) + end)

    def status(self, *a, **k):
        return _Null()


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Rule:
    pass


class _Retrying:
    def __init__(self, **kwargs):
        pass

    def __iter__(self):
        yield _Null()


def next_input(*_a, **_k) -> str:
    text = inputs.pop(0)
    if text == "<C-c>":
        record("in", "<C-c>")
        raise KeyboardInterrupt
    record("in", text)
    return text


def typed(prompt: str = "") -> str:
    record("ui", prompt)
    return next_input()


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


stub("tenacity", Retrying=_Retrying, before_sleep_log=lambda *a, **k: None,
     retry_if_not_exception_type=lambda *a, **k: None, stop_after_attempt=lambda *a, **k: None,
     wait_exponential=lambda *a, **k: None)
stub("rich")
stub("rich.console", Console=_Console)
stub("rich.rule", Rule=_Rule)
stub("rich.logging", RichHandler=lambda *a, **k: logging.NullHandler())
stub("platformdirs", user_config_dir=lambda name: tempfile.mkdtemp())
stub("litellm")
os.environ["MSWEA_SILENT_STARTUP"] = "1"
sys.path.insert(0, str(UPSTREAM))
import minisweagent.agents.utils  # noqa: E402,F401

stub("minisweagent.agents.utils.prompt_user", prompt_session=types.SimpleNamespace(prompt=next_input),
     _multiline_prompt=next_input)

import builtins  # noqa: E402

import yaml  # noqa: E402
from minisweagent.agents.interactive import InteractiveAgent  # noqa: E402
from minisweagent.environments.local import LocalEnvironment  # noqa: E402
from minisweagent.models.openrouter_model import OpenRouterModel  # noqa: E402
from minisweagent.models.openrouter_textbased_model import OpenRouterTextbasedModel  # noqa: E402

builtins.input = typed
InteractiveAgent._stdin_is_interactive = staticmethod(lambda: True)
_add_messages = InteractiveAgent.add_messages


def add_messages(self, *messages):
    showing[0] = True
    try:
        return _add_messages(self, *messages)
    finally:
        showing[0] = False


InteractiveAgent.add_messages = add_messages


def on_alarm(*_a):
    raise KeyboardInterrupt


signal.signal(signal.SIGALRM, on_alarm)


def placeholders(text, cwd):
    u = platform.uname()
    for value, name in [(cwd, "<CWD>"), (u.version, "<VERSION>"), (u.release, "<RELEASE>"), (u.node, "<NODE>")]:
        text = text.replace(value, name)
    return text


def play(scenario):
    transcript.clear()
    inputs[:] = list(scenario["inputs"])
    config = yaml.safe_load((ROOT / "config" / f"{scenario['config']}.yaml").read_text())
    replies_path = HERE / scenario["replies_file"] if "replies_file" in scenario else None
    replies = yaml.safe_load(replies_path.read_text()) if replies_path else scenario["replies"]
    work = Path(tempfile.mkdtemp())
    script = work / "replies.json"
    script.write_text(json.dumps(replies))
    log = work / "requests.jsonl"
    server = subprocess.Popen(
        ["deno", "run", "-A", str(ROOT / "tests/testdata/conformance/record_server.ts"), str(script), str(log)],
        stdout=subprocess.PIPE, text=True, cwd=ROOT)
    url = server.stdout.readline().strip()
    cwd = tempfile.mkdtemp()
    try:
        model_config = {k: v for k, v in config["model"].items() if k != "model_class"}
        cls = OpenRouterModel if scenario["model_class"] == "openrouter" else OpenRouterTextbasedModel
        model = cls(model_name="test-model", **model_config)
        model._api_url = url + "/chat/completions"
        env_config = {k: v for k, v in config["environment"].items() if k != "environment_class"}
        env = LocalEnvironment(**{**env_config, "cwd": cwd, "timeout": scenario.get("timeout", 10)})
        calls = [0]
        query, execute = model.query, env.execute

        def interruptible_query(*a, **k):
            index = calls[0]
            calls[0] += 1
            if "fault" in replies[index]:
                signal.setitimer(signal.ITIMER_REAL, 0.5)
            try:
                return query(*a, **k)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)

        def interruptible_execute(action, *a, **k):
            if "sleep 7" in action["command"]:
                signal.setitimer(signal.ITIMER_REAL, 1.0)
            try:
                return execute(action, *a, **k)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)

        model.query, env.execute = interruptible_query, interruptible_execute
        agent = InteractiveAgent(model, env, **{**config["agent"], **scenario["agent"]})
        result = agent.run(TASK)
    finally:
        server.terminate()
        server.wait()
    assert not inputs, f"{scenario['name']}: inputs left over: {inputs}"
    for m in agent.messages:
        m.get("extra", {}).pop("timestamp", None)
    requests = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    golden = {"name": scenario["name"], "task": TASK, "result": result, "transcript": transcript,
              "messages": agent.messages, "requests": requests,
              "final_agent_config": {k: getattr(agent.config, k) for k in
                                     ("mode", "step_limit", "cost_limit", "confirm_exit")}}
    text = placeholders(json.dumps(golden, indent=1, ensure_ascii=False), cwd)
    (HERE / f"{scenario['name']}_golden.json").write_text(text + "\n", encoding="utf-8")
    print(f"{scenario['name']}: {len(agent.messages)} messages, {len(requests)} requests, {result['exit_status']}")


for scenario in yaml.safe_load((HERE / "scenarios.yaml").read_text()):
    play(scenario)
