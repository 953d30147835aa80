"""Benchmark reports: a saved pytest-benchmark run as a markdown table and a PNG plot.

    softmax-harness report [RUN.json ...] [--out reports/]

Without RUN.json the newest run under ``.benchmarks/`` is used. Of several runs (a sweep of some
ops measured again), each op's and each type's tables come from the last run that has them, and
each section names its run. Each element type has
a table with a row per kernel and a column per row length C: GB/s and the percentage
of the copy bandwidth measured in the same run (beside each kernel, round by round),
the best of our kernels in bold, and ``torch.softmax`` (and Triton, where it ran) beside them.
Each op besides the forward (its benchmarks carry ``op``) has a table of its own: the dispatched
op and each peer's that ran (torch, Quack, Liger), as fractions of a copy of the same bytes.
The plot has two panels an element type: GB/s under the copy's ceiling, and the fraction of
the copy timed beside each kernel.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from .latency import HOST_CONTENDERS

BASELINES = ("copy", "torch.softmax", "triton", "quack.softmax", "liger.softmax")
PEERS = ("torch", "quack", "liger")
DISPATCH = "softmax_harness.softmax"
DTYPE_ORDER = ("float32", "float16", "bfloat16")


def newest_run(root: Path = Path(".benchmarks")) -> Path:
    runs = sorted(root.rglob("*.json"), key=lambda p: p.name)
    if not runs:
        raise FileNotFoundError(f"no saved benchmark run under {root} (run the GPU runner with --bench)")
    return runs[-1]


def _in_order(dtypes) -> list[str]:
    return sorted(dtypes, key=lambda d: (DTYPE_ORDER + (d,)).index(d))


class RunFileError(ValueError):
    """A file that is not a saved pytest-benchmark run; the message says why in one line."""


def load(path: Path) -> dict:
    """{dtype: {kernel: {C: extra_info}}} and the run's metadata, from a pytest-benchmark JSON file."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise RunFileError(f"{path} is not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise RunFileError(f"{path} is not a saved pytest-benchmark run (it has no 'benchmarks' list)")
    tables: dict[str, dict[str, dict[int, dict]]] = defaultdict(lambda: defaultdict(dict))
    other: dict[str, dict] = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    small: dict[str, dict] = {"latency": defaultdict(dict), "host overhead": defaultdict(dict)}
    for bench in data["benchmarks"]:
        info = bench.get("extra_info", {})
        for kind, key in (("latency", "latency_of"), ("host overhead", "host_overhead_of")):
            if key in info:
                small[kind][(info["dtype"], info["N"], info["C"])][info[key]] = info["us"]
        if "kernel" in info:
            dtype = info.get("dtype", "float32")
            into = other[info["op"]] if "op" in info else tables
            into[dtype][info["kernel"]][info["C"]] = {**info, "median_s": bench["stats"]["median"]}
    order = _in_order(tables)
    commit = dict(data.get("commit_info") or {})
    # gpu-check saves runs as NNNN_<commit>.json (the device's copy of the tree has no .git)
    if commit.get("id") in (None, "", "unknown") and "_" in Path(path).stem:
        commit["id"] = Path(path).stem.split("_", 1)[1]
    ops = {op: {d: dict(t[d]) for d in _in_order(t)}
           for op, t in other.items()}
    return {"tables": {d: dict(tables[d]) for d in order}, "ops": ops,
            "small": {kind: dict(rows) for kind, rows in small.items() if rows},
            "machine": data.get("machine_info", {}), "commit": commit, "datetime": data.get("datetime", "")}


def _recorded_device(run: dict) -> str:
    return (run["machine"].get("gpu") or {}).get("device") or run["machine"].get("node", "GPU")


def _label(run: dict, source: str) -> str:
    commit = run["commit"].get("id", "?")[:10]
    return f"`{source}` ({_recorded_device(run)}, commit {commit}, {run['datetime'][:19]})"


def combine(paths: list[Path]) -> dict:
    """The runs at ``paths`` as one: each op's tables (and the forward's, a type at a time) from the
    last run that measured them (a forward table of the copy alone does not count); ``sources``
    says which run each section came from."""
    runs = [(load(path), str(path)) for path in paths]
    run = dict(runs[-1][0])
    run["tables"], run["ops"], run["sources"], run["small"], run["devices"] = {}, {}, {}, {}, {}

    def take(key: str, one: dict, source: str) -> None:
        run["sources"][key] = _label(one, source)
        run["devices"][key] = _recorded_device(one)

    for one, source in runs:
        for kind, rows in one.get("small", {}).items():
            run["small"][kind] = rows
            take(kind, one, source)
        for dtype, table in one["tables"].items():
            if set(table) <= {"copy"}:  # a sweep of other ops times the copy on its own too
                continue
            run["tables"][dtype] = table
            take(dtype, one, source)
        for op, tables in one["ops"].items():
            run["ops"][op] = tables
            take(op, one, source)
    run["tables"] = {d: run["tables"][d] for d in _in_order(run["tables"])}
    return run


def best_of_ours(table: dict) -> dict[int, tuple[str, dict]]:
    best = {}
    for kernel, row in table.items():
        if kernel in BASELINES or kernel == DISPATCH:
            continue
        for c, info in row.items():
            if c not in best or info["gbps"] > best[c][1]["gbps"]:
                best[c] = (kernel, info)
    return best


def _device(run: dict, key: str | None = None) -> str:
    """The device for the titles: what ``--device`` said, else what the runs recorded: of runs
    combined on several cards, the one that measured section ``key``, or every card."""
    if run.get("device"):
        return run["device"]
    devices = run.get("devices", {})
    if key in devices:
        return devices[key]
    return " and ".join(sorted(set(devices.values()))) or _recorded_device(run)


BANDWIDTH_NOTE = (
    "GB/s counting the input read once and the output written once; in brackets, the",
    "percentage of a device-to-device copy of the same bytes timed in the same run (beside",
    "each kernel, round by round; the row of those copies gives their range, and the copy",
    "row, a copy timed on its own, is shown against their median).",
    "Bold: the fastest of our kernels at that C. Times are medians of CUDA-event timings.",
    "A blank cell: not run there; a peer that refuses an input (Quack: a row its 16-byte vectors",
    "do not divide, or one past its shared memory; Liger: past 65536) is skipped, and",
    "`pytest -rs` names why.",
)


def markdown(run: dict, source: str = "") -> str:
    sweep = bool(run["tables"] or run.get("ops"))
    lines = [
        f"# {'Softmax bandwidth, ~1 GiB inputs' if sweep else 'Softmax, small batches'} ({_device(run)}, "
        f"{run['datetime'][:19]}, commit {run['commit'].get('id', '?')[:10]})",
        "",
        *(BANDWIDTH_NOTE if sweep else ()),
        f"Source: `{source}`" if source else "",
    ]
    sources = run.get("sources", {})
    several = len(set(sources.values())) > 1
    if several:
        lines += ["Each section comes from the run it names; the newest is in the title."]

    def run_of(key: str) -> list[str]:
        return [f"Run: {sources[key]}", ""] if several else []

    for dtype, table in run["tables"].items():
        lines += ["", f"## {dtype}", "", *run_of(dtype), *_section(table)]
    for op, tables in run.get("ops", {}).items():
        lines += ["", f"## {op}", "", *run_of(op), "The copy moves the same bytes: the inputs read once and "
                  "the output written once.", "", *_op_section(op, tables)]
    for kind, rows in run.get("small", {}).items():
        lines += ["", f"## Small batches: {kind} (µs)", "", *run_of(kind), SMALL_NOTES[kind], "",
                  *_small_section(rows)]
    return "\n".join(lines) + "\n"


SMALL_NOTES = {
    "latency": "The device time of one softmax call with a cold L2 (a 256 MiB buffer overwritten and "
               "the stream held by a spin before each call; medians of 20; `softmax_harness.latency`). "
               "harness-cupy: `softmax_harness.softmax` on CuPy arrays; harness-torch: "
               "`softmax_harness.torch.softmax` on torch tensors. Bold: the fastest at that shape.",
    "host overhead": "The host time of one call: 100 calls back to back, unsynchronised, wall time over "
                     "100 (medians of 10). harness-cupy-bound, harness-torch-bound: ours bound to its "
                     "operands once (`softmax_harness.bind`, `softmax_harness.torch.bind`), each call "
                     "the launch alone.",
}


def _small_section(rows: dict) -> list[str]:
    """A row per (dtype, N, C), a column per contender."""
    who = [w for w in HOST_CONTENDERS if any(w in r for r in rows.values())]  # every contender, in order
    lines = ["| dtype | N x C | " + " | ".join(who) + " |", "|---|---|" + "---|" * len(who)]
    def order(key):
        return (*DTYPE_ORDER, key[0]).index(key[0]), key[1], key[2]

    for (dtype, n, c), found in sorted(rows.items(), key=lambda kv: order(kv[0])):
        fastest = min(found.values())
        cells = [("n/a" if w not in found else f"**{found[w]:.1f}**" if found[w] == fastest
                  else f"{found[w]:.1f}") for w in who]
        lines.append(f"| {dtype} | {n} x {c} | " + " | ".join(cells) + " |")
    return lines


def _op_section(op: str, tables: dict) -> list[str]:
    """A row per (dtype, C): the dispatched op and each peer that ran it (torch, Quack, Liger), as
    fractions of the copy beside each, and our time against the fastest peer's."""
    ours = f"softmax_harness.{op}"
    peers = [p for p in PEERS if any(f"{p}.{op}" in t for t in tables.values())]
    lines = ["| dtype | C | dispatched variant | GB/s | % of copy | "
             + " | ".join(f"{p}: % of copy" for p in peers) + " | vs the fastest peer |",
             "|---|---|---|---|---|" + "---|" * len(peers) + "---|"]
    for dtype, table in tables.items():
        for c in sorted(table.get(ours, {})):
            mine = table[ours][c]
            found = {p: table.get(f"{p}.{op}", {}).get(c) for p in peers}
            cells = [f"{100 * b['fraction_of_copy']:.0f}%" if b else "n/a" for b in found.values()]
            fastest = min((b["median_s"] for b in found.values() if b), default=None)
            vs = f"{fastest / mine['median_s']:.2f}x" if fastest else "n/a"
            lines.append(f"| {dtype} | {c} | {mine.get('dispatched', '?')} | {mine['gbps']:.0f} | "
                         f"{100 * mine['fraction_of_copy']:.0f}% | " + " | ".join(cells) + f" | {vs} |")
    return lines


def _section(table: dict) -> list[str]:
    cols = sorted({c for row in table.values() for c in row})
    best = best_of_ours(table)
    ours = sorted(k for k in table if k not in BASELINES and k != DISPATCH)
    order = [k for k in (*BASELINES, DISPATCH) if k in table] + ours
    head = "| kernel | " + " | ".join(f"C={c}" for c in cols) + " |"
    lines = [head, "|" + "---|" * (len(cols) + 1)]
    for kernel in order:
        cells = []
        for c in cols:
            info = table[kernel].get(c)
            if info is None:
                cells.append("")
                continue
            beside = _beside(table, c) if kernel == "copy" else []  # timed on its own: against those
            fraction = info["gbps"] / statistics.median(beside) if beside else info["fraction_of_copy"]
            text = f"{info['gbps']:.0f} ({100 * fraction:.0f}%)"
            cells.append(f"**{text}**" if best.get(c, (None,))[0] == kernel else text)
        lines.append(f"| {kernel} | " + " | ".join(cells) + " |")
    lines.append("| copy timed beside each kernel: GB/s, slowest-fastest | "
                 + " | ".join(_copy_spread(table, c) for c in cols) + " |")
    torch = table.get("torch.softmax", {})
    lines += ["", "| C | fastest of ours | GB/s | % of copy | vs torch.softmax |", "|---|---|---|---|---|"]
    for c in cols:
        if c in best:
            kernel, info = best[c]
            ratio = f"{torch[c]['median_s'] / info['median_s']:.2f}x" if c in torch else "n/a"
            lines.append(f"| {c} | {kernel} | {info['gbps']:.0f} | {100 * info['fraction_of_copy']:.0f}% "
                         f"| {ratio} |")
    dispatched = table.get(DISPATCH, {})
    if dispatched:
        triton = table.get("triton", {})
        lines += ["", "`softmax_harness.softmax` (what it dispatched to, measured as called):", "",
                  "| C | dispatched variant | GB/s | % of copy | vs torch.softmax | vs Triton |",
                  "|---|---|---|---|---|---|"]
        for c in sorted(dispatched):
            info = dispatched[c]
            vs = [f"{base[c]['median_s'] / info['median_s']:.2f}x" if c in base else "n/a"
                  for base in (torch, triton)]
            lines.append(f"| {c} | {info.get('dispatched', '?')} | {info['gbps']:.0f} | "
                         f"{100 * info['fraction_of_copy']:.0f}% | {vs[0]} | {vs[1]} |")
    return lines


def _beside(table: dict, c: int) -> list[float]:
    """The copy bandwidths that the kernels at this C were measured against."""
    return [row[c]["copy_gbps"] for kernel, row in table.items()
            if kernel != "copy" and c in row and "copy_gbps" in row[c]]


def _copy_spread(table: dict, c: int) -> str:
    """The range of the copies beside the kernels at this C: how much the card itself moved during the run."""
    seen = _beside(table, c)
    return f"{min(seen):.0f}-{max(seen):.0f}" if seen else ""


#: How each line of the plot looks: (label, colour, marker, line style); colours distinct.
STYLES = {
    "best": ("best of ours", "tab:blue", "o", "-"),
    DISPATCH: ("softmax_harness.softmax (dispatch)", "tab:orange", "D", "-"),
    "torch.softmax": ("torch.softmax", "tab:red", "s", "-"),
    "triton": ("Triton (one program per row)", "tab:green", "^", "-"),
    "quack.softmax": ("Quack (CuTe DSL)", "tab:purple", "v", "-"),
    "liger.softmax": ("Liger (Triton, C <= 65536)", "tab:brown", "x", "-"),
    "copy": ("device-to-device copy (the ceiling)", "black", "", "--"),
}


def plot(run: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tables = run["tables"]
    fig, axes = plt.subplots(len(tables), 2, figsize=(16, 4.8 * len(tables)), squeeze=False)
    for row, (dtype, table) in zip(axes, tables.items(), strict=True):
        title = f"{dtype} softmax on {_device(run, dtype)}: GB/s (grey: every variant)"
        _bandwidth_panel(row[0], table, title)
        _fraction_panel(row[1], table, f"{dtype}: fraction of the copy timed beside each kernel")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), frameon=False,
               bbox_to_anchor=(0.5, 1.0))
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _lines(table: dict) -> dict[str, dict[int, dict]]:
    """The plotted lines: the best of ours at each C, the dispatcher and the baselines."""
    best = best_of_ours(table)
    found = {"best": {c: info for c, (_, info) in best.items()}}
    found.update({k: table[k] for k in (DISPATCH, *BASELINES) if table.get(k)})
    return found


def _axes(ax, title: str, ylabel: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_xlabel("row length C (N chosen for ~1 GiB inputs)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)


def _bandwidth_panel(ax, table: dict, title: str) -> None:
    for kernel, row in sorted(table.items()):
        if kernel not in BASELINES and kernel != DISPATCH:
            cs = sorted(row)
            ax.plot(cs, [row[c]["gbps"] for c in cs], color="0.8", linewidth=0.8)
    for key, row in _lines(table).items():
        label, colour, marker, style = STYLES[key]
        cs = sorted(row)
        ax.plot(cs, [row[c]["gbps"] for c in cs], color=colour, marker=marker, linestyle=style,
                linewidth=2.0 if key == "best" else 1.4, label=label)
    _axes(ax, title, "GB/s (input read once + output written once)")


def _fraction_panel(ax, table: dict, title: str) -> None:
    ax.axhline(100, color="black", linestyle="--", linewidth=1.0)
    for key, row in _lines(table).items():
        if key == "copy":
            continue
        label, colour, marker, style = STYLES[key]
        cs = sorted(row)
        ax.plot(cs, [100 * row[c]["fraction_of_copy"] for c in cs], color=colour, marker=marker,
                linestyle=style, label=label)
    _axes(ax, title, "% of the copy timed beside it")
    ax.set_ylim(top=max(105, ax.get_ylim()[1]))


def _run(args) -> int:
    sources = [Path(s) for s in args.source] or [newest_run()]
    if args.device is None:
        gpu_report = Path(args.out) / "gpu.json"
        if gpu_report.is_file():
            args.device = json.loads(gpu_report.read_text()).get("environment", {}).get("device")
    run = combine(sources) if len(sources) > 1 else load(sources[0])
    run["device"] = args.device
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.md").write_text(markdown(run, ", ".join(map(str, sources))))
    written = [out / "bench.md"]
    if not args.no_plot and run["tables"]:  # the plot draws the forward's sweep
        if importlib.util.find_spec("matplotlib") is None:
            print("softmax-harness report: bench.png not drawn: matplotlib is not installed "
                  "(pip install 'softmax-harness[bench]', or --no-plot)", file=sys.stderr)
        else:
            plot(run, out / "bench.png")
            written.append(out / "bench.png")
    print("wrote " + ", ".join(map(str, written)))
    return 0


def add_parser(sub) -> None:
    parser = sub.add_parser("report", help="a saved benchmark run as reports/bench.md and bench.png")
    parser.add_argument("source", nargs="*", metavar="RUN.json",
                        help="pytest-benchmark JSON files (default: the newest in .benchmarks/); of several, "
                             "each op's and each type's tables come from the last that has them")
    parser.add_argument("--out", default="reports")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--device", default=None,
                        help="device name for the titles (default: the GPU report's, else the host name)")
    parser.set_defaults(run=_run)
