"""The repository's tests use the harness through its own pytest plugin (fixtures, options,
the Hypothesis profile): the same path as any other project's. Installed, the package registers
it (``pytest11``); a source tree that is not installed (the GPU machine's copy) loads it here."""

from importlib.metadata import entry_points

if not any(ep.name == "softmax_harness.pytest_plugin" for ep in entry_points(group="pytest11")):
    pytest_plugins = ["softmax_harness.pytest_plugin"]
