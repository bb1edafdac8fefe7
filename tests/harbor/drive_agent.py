"""Drive examples/harbor/claudius_agent.py as Harbor would, against a real Docker container.

Harbor cannot be installed here, so `tests/harbor/standin/` stands in for its base classes (marked
there). The environment below is real: `exec` is `docker exec` into the given container and
`upload_file` is `docker cp`. Prints one JSON object: the filled context, and every command the
agent sent (user, env names, command).

Usage: python3 drive_agent.py CONTAINER LOGS_DIR MODEL BASE_URL INSTRUCTION
       python3 drive_agent.py --plan BINARY   (print the install and run commands for a compiled binary)
"""
import asyncio
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from claudius_agent import Claudius
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext


@dataclasses.dataclass
class ExecResult:
    stdout: str
    stderr: str
    return_code: int


class DockerEnvironment(BaseEnvironment):
    """A task container: commands through `docker exec`, files through `docker cp`."""

    def __init__(self, container: str):
        self.container = container
        self.sent: list[dict] = []

    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None):
        self.sent.append({"user": user, "env": sorted((env or {}).keys()), "command": command})
        args = ["docker", "exec"]
        for key, value in (env or {}).items():
            args += ["-e", f"{key}={value}"]
        if user:
            args += ["-u", user]
        if cwd:
            args += ["-w", cwd]
        args += [self.container, "bash", "-c", command]
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout_sec or 300)
        if p.returncode != 0:
            raise RuntimeError(f"exec failed ({p.returncode}): {command[:200]}\n{p.stdout}\n{p.stderr}")
        return ExecResult(p.stdout, p.stderr, p.returncode)

    async def upload_file(self, source_path, target_path):
        subprocess.run(["docker", "cp", str(source_path), f"{self.container}:{target_path}"], check=True)


async def main() -> None:
    if sys.argv[1] == "--plan":
        agent = Claudius(Path("/tmp"), "openai/gpt-5", binary=sys.argv[2], config="default,agent.step_limit=9")
        payload = agent.payload(Path("/tmp"))
        print(json.dumps({
            "payload": [[str(s), t] for s, t in payload],
            "install": agent.install_command(),
            "run": agent.run_command(),
        }))
        return
    container, logs_dir, model, base_url, instruction = sys.argv[1:6]
    agent = Claudius(Path(logs_dir), model, base_url=base_url, step_limit="20")
    env = DockerEnvironment(container)
    context = AgentContext()
    await agent.install(env)
    await agent.run(instruction, env, context)
    agent.populate_context_post_run(context)
    print(json.dumps({
        "name": agent.name(),
        "version": agent.version(),
        "supports_atif": agent.SUPPORTS_ATIF,
        "context": dataclasses.asdict(context),
        "sent": env.sent,
    }))


asyncio.run(main())
