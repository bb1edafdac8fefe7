"""TEST STAND-IN for Harbor's BaseInstalledAgent (not Harbor itself, which cannot be installed here).

It has Harbor's constructor and exec helpers as the adapter uses them: `exec_as_root` and
`exec_as_agent` hand a shell command to the environment's `exec`, as the root user or the agent's.
"""
from pathlib import Path


class BaseInstalledAgent:
    SUPPORTS_ATIF = False

    def __init__(self, logs_dir, model_name=None, *args, **kwargs):
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name

    async def exec_as_root(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await environment.exec(command, cwd=cwd, env=env, timeout_sec=timeout_sec, user="root")

    async def exec_as_agent(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await environment.exec(command, cwd=cwd, env=env, timeout_sec=timeout_sec, user=None)
