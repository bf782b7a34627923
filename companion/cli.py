"""The ``companion`` command line.

Each sub-command lives in its own module under :mod:`companion.commands` and exposes a click
command named ``command``. Modules are discovered and imported lazily, so ``companion replay``
never pays for OpenCV and a new command is a new file, not an edit here. ``bench_<name>.py``
modules become ``companion bench <name>``.
"""

from __future__ import annotations

import importlib
import pkgutil

import click

from companion import __version__, commands


def _module_names() -> list[str]:
    return sorted(
        m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_")
    )


def _command_name(module: str) -> str:
    return module.replace("_", "-")


def _load(module: str) -> click.Command:
    mod = importlib.import_module(f"companion.commands.{module}")
    cmd = getattr(mod, "command", None)
    if not isinstance(cmd, click.Command):
        raise click.ClickException(f"companion.commands.{module} defines no click command")
    return cmd


class _LazyGroup(click.Group):
    """A group whose sub-commands are modules named ``<prefix><name>.py``."""

    def __init__(self, *args: object, prefix: str = "", **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.prefix = prefix

    def _modules(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for name in _module_names():
            if self.prefix:
                if name.startswith(self.prefix):
                    found[_command_name(name[len(self.prefix) :])] = name
            elif not name.startswith("bench_"):
                found[_command_name(name)] = name
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx)) | set(self._modules())
        return sorted(names)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None:
            return cmd
        module = self._modules().get(cmd_name)
        return _load(module) if module else None


@click.group(cls=_LazyGroup)
@click.version_option(__version__, prog_name="companion")
def main() -> None:
    """A referee, clock and recorder for a real board on a real table."""


@main.group(cls=_LazyGroup, prefix="bench_")
def bench() -> None:
    """Print speed figures (moves, frames, page and hub delays) measured on this machine."""
