"""The repository's tests use the harness through its own pytest plugin (fixtures, options,
the Hypothesis profile): the same path as any other project's."""

pytest_plugins = ["softmax_harness.pytest_plugin"]
