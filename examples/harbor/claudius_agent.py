"""claudius as a Harbor installed agent.

Harbor (https://harborframework.com) runs an agent inside each task's container. This class puts
claudius there and runs it headless on the task's instruction:

    harbor run -d terminal-bench@2.0 -m openai/gpt-5 \\
        --agent-import-path examples.harbor.claudius_agent:Claudius

(run from the claudius repository, or put this folder on PYTHONPATH). Constructor arguments come
from ``--ak key=value``: ``binary`` (a compiled claudius), ``deno`` (a Deno binary), ``config``
(comma-separated ``-c`` specs, e.g. ``config=programbench.yaml,agent.step_limit=250``),
``base_url``, ``step_limit``, ``cost_limit``; Harbor's own (``prompt_template_path``, ``version``,
``extra_env``, and ``model_name`` from ``-m``) go to its BaseInstalledAgent, whose constructor
signature this class keeps (Harbor 0.13.x and main), so the trial's result names the model.

Install: the compiled binary when one is available (``binary=``, ``$CLAUDIUS_BINARY``, or
``dist/claudius`` of this repository), else Deno (``deno=``, ``$CLAUDIUS_DENO``, or the ``deno``
on PATH) plus the program as ``deno task install`` bundles it (configs and workers): nothing is
downloaded inside the container. Both go to ``/opt/claudius``; ``/usr/local/bin/claudius`` runs it.

Run: ``claudius --task <instruction> -m <model> --env local --cwd <the task's working directory>``,
writing the native trajectory to ``/logs/agent/claudius.traj.json``, its log to
``/logs/agent/claudius.txt`` and ATIF v1.7 to ``/logs/agent/trajectory.json`` after every step
(``run.atif_path``, its ``session_id`` a UUID of the run: unique per trial), so a run Harbor kills
on timeout still leaves both on disk. The provider's key
variables set on the host are passed to it. Endings (Submitted, LimitsExceeded, TimeExceeded,
RepeatedFormatError, EnvironmentLost) exit 0; errors keep claudius's exit code.

After the run, the context gets tokens and cost from the ATIF ``final_metrics``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from harbor.agents.installed.base import BaseInstalledAgent
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

REPO = Path(__file__).resolve().parents[2]
INSTALL_DIR = "/opt/claudius"
LOGS = "/logs/agent"
# The flags `deno task run` and the compiled binary use.
DENO_FLAGS = (
    "--v8-flags=--max-semi-space-size=1,--optimize-for-size,--max-opt=2 "
    "--allow-read --allow-write --allow-run --allow-env --allow-net --allow-sys"
)
# Exit codes of claudius's endings (the others are errors).
ENDINGS = "0|3|4|5|6"
# Provider variables passed into the container when set on the host.
PASSED_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "MOONSHOT_API_KEY",
)


class Claudius(BaseInstalledAgent):
    """claudius (a faithful mini-SWE-agent in one binary), installed into the task container."""

    SUPPORTS_ATIF = True

    def __init__(
        self,
        logs_dir: Path,
        prompt_template_path: Path | str | None = None,
        version: str | None = None,
        extra_env: dict[str, str] | None = None,
        *args,
        binary: str | None = None,
        deno: str | None = None,
        config: str | None = None,
        base_url: str | None = None,
        step_limit: int | str | None = None,
        cost_limit: float | str | None = None,
        **kwargs,
    ):
        # Harbor's own signature (BaseInstalledAgent, 0.13.x and main): Harbor passes everything by
        # keyword (`logs_dir=`, `model_name=`, `extra_env=`, `logger=`, then `--ak` arguments), and
        # `model_name` reaches BaseAgent through **kwargs, which reads it into the trial's result.
        # `config` is ours (claudius's -c specs), so it is not handed to Harbor's native-config slot.
        super().__init__(logs_dir, prompt_template_path, version, extra_env, *args, **kwargs)
        self._binary = binary or os.environ.get("CLAUDIUS_BINARY") or _existing(REPO / "dist" / "claudius")
        self._deno = deno or os.environ.get("CLAUDIUS_DENO") or _which_deno()
        self._specs = [c for c in (config or "").split(",") if c]
        self._base_url = base_url
        self._step_limit = step_limit
        self._cost_limit = cost_limit

    @staticmethod
    def name() -> str:
        return "claudius"

    def version(self) -> str | None:
        match = re.search(r'VERSION = "([^"]+)"', (REPO / "src" / "core" / "version.ts").read_text())
        return match.group(1) if match else None

    # --- what is installed, and how -------------------------------------------------------

    def payload(self, workdir: Path) -> list[tuple[Path, str]]:
        """The host files to upload (source, target in the container); bundles the program if needed."""
        if self._binary:
            return [(Path(self._binary), f"{INSTALL_DIR}/claudius")]
        if not self._deno:
            raise RuntimeError("Cannot install claudius: no compiled binary (binary=) and no deno (deno=)")
        # The program as `deno task install` bundles it (main.js, its chunks, the workers, config/).
        root = workdir / "install"
        subprocess.run(
            [self._deno, "task", "install"],
            cwd=REPO,
            env={**os.environ, "CLAUDIUS_INSTALL_ROOT": str(root)},
            check=True,
            capture_output=True,
        )
        bundle = root / "lib" / "claudius"
        archive = workdir / "app.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(bundle, arcname=".")
        return [(Path(self._deno), f"{INSTALL_DIR}/deno"), (archive, f"{INSTALL_DIR}/app.tar.gz")]

    def install_command(self) -> str:
        """The root shell command that unpacks the payload and puts `claudius` on PATH."""
        if self._binary:
            run = f'exec {INSTALL_DIR}/claudius "$@"'
        else:
            run = (
                'DENO_DIR="${TMPDIR:-/tmp}/claudius-deno" DENO_NO_UPDATE_CHECK=1 '
                f'exec {INSTALL_DIR}/deno run {DENO_FLAGS} {INSTALL_DIR}/app/main.js "$@"'
            )
        wrapper = f"#!/bin/sh\n{run}\n"
        return "\n".join(
            [
                "set -e",
                f"mkdir -p {INSTALL_DIR} {LOGS}",
                f"if [ -f {INSTALL_DIR}/app.tar.gz ]; then",
                f"  rm -rf {INSTALL_DIR}/app && mkdir -p {INSTALL_DIR}/app",
                f"  tar -xzf {INSTALL_DIR}/app.tar.gz -C {INSTALL_DIR}/app && rm {INSTALL_DIR}/app.tar.gz",
                "fi",
                f"chmod -R a+rX {INSTALL_DIR}",
                f"chmod a+x {INSTALL_DIR}/claudius {INSTALL_DIR}/deno 2>/dev/null || true",
                f"printf %s {shlex.quote(wrapper)} > /usr/local/bin/claudius",
                "chmod a+rx /usr/local/bin/claudius",
                "claudius --version",
            ]
        )

    def run_command(self) -> str:
        """The agent's shell command (the instruction comes in `$CLAUDIUS_TASK`)."""
        args = ["claudius", '--task "$CLAUDIUS_TASK"', "--env", "local", '--cwd "$PWD"']
        if self.model_name:
            args += ["-m", shlex.quote(self.model_name)]
        if self._base_url:
            args += ["--base-url", shlex.quote(self._base_url)]
        if self._step_limit is not None:
            args += ["--step-limit", shlex.quote(str(self._step_limit))]
        if self._cost_limit is not None:
            args += ["--cost-limit", shlex.quote(str(self._cost_limit))]
        for spec in self._specs:
            args += ["-c", shlex.quote(spec)]
        args += ["-o", f"{LOGS}/claudius.traj.json", "-c", f"run.atif_path={LOGS}/trajectory.json"]
        return (
            f"mkdir -p {LOGS}; {' '.join(args)} > {LOGS}/claudius.txt 2>&1; code=$?; "
            f'case $code in {ENDINGS}) exit 0;; *) tail -n 20 {LOGS}/claudius.txt >&2; exit $code;; esac'
        )

    def run_env(self, instruction: str) -> dict[str, str]:
        """The variables the run gets: the instruction, and the provider keys set on the host."""
        env = {name: os.environ[name] for name in PASSED_ENV if os.environ.get(name)}
        env["CLAUDIUS_TASK"] = instruction
        return env

    # --- Harbor's interface --------------------------------------------------------------

    async def install(self, environment: BaseEnvironment) -> None:
        await self.exec_as_root(environment, f"mkdir -p {INSTALL_DIR}")
        with tempfile.TemporaryDirectory(prefix="claudius-harbor-") as tmp:
            for source, target in self.payload(Path(tmp)):
                await environment.upload_file(source, target)
        await self.exec_as_root(environment, self.install_command())

    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        # Harbor's prompt template (`--ak prompt_template_path=...`), as its own agents apply it.
        instruction = self.render_instruction(instruction)
        await self.exec_as_agent(environment, self.run_command(), env=self.run_env(instruction))

    def populate_context_post_run(self, context: AgentContext) -> None:
        path = Path(self.logs_dir) / "trajectory.json"
        if not path.exists():
            return
        metrics = json.loads(path.read_text()).get("final_metrics", {})
        context.n_input_tokens = metrics.get("total_prompt_tokens")
        context.n_output_tokens = metrics.get("total_completion_tokens")
        context.n_cache_tokens = metrics.get("total_cached_tokens")
        context.cost_usd = metrics.get("total_cost_usd")


def _existing(path: Path) -> str | None:
    return str(path) if path.is_file() else None


def _which_deno() -> str | None:
    """The real Deno binary (npm installs put a symlink on PATH)."""
    found = shutil.which("deno")
    return os.path.realpath(found) if found else None
