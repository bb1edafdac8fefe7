"""TEST STAND-IN for Harbor's BaseEnvironment (an interface: `exec`, `upload_file`)."""


class BaseEnvironment:
    async def exec(self, command, cwd=None, env=None, timeout_sec=None, user=None):
        raise NotImplementedError

    async def upload_file(self, source_path, target_path):
        raise NotImplementedError
