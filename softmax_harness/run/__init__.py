"""The GPU runner, in parts: child pytest processes and their journal (``children``,
``journal``), the report's one schema and builder (``schema``), the steps of a run
(``orchestrate``: gallery, sanitizers, variants, sweep), and its command line (``cli``).

    python -m softmax_harness.run [--workers N] [--sanitize] [--out reports/gpu.json] ...
"""
