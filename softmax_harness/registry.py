"""Kernel registry: the ``@variant`` headers inside ``kernels/**/*.cu``.

Each kernel file declares its variants in comment lines of the form::

    // @variant name=online_warp kernel=online_warp algorithm=online geometry=warp-per-row threads=128

Fields (``key=value``, values may be quoted):

``name``        unique identifier of the variant (letters, digits, ``_``)
``op``          what it computes (``softmax_harness.ops``): ``softmax`` (the default), ``softmax_backward``
                (dx = y * (dy - sum(dy * y)), from inputs ``y`` and ``dy``), ``log_softmax`` or
                ``log_softmax_backward`` (dx = dy - exp(z) * sum(dy), from inputs ``z`` and ``dy``), or
                the fused forward ``scaled_softmax_bias`` (softmax(scale * x + bias): inputs ``in``,
                ``bias`` and the float ``scale``), ``scaled_softmax_mask`` (``in``, a ``bool`` ``mask``,
                True masking, and ``scale``) or ``scaled_softmax_causal`` (``in`` and ``scale``; row r
                keeps columns 0 .. r % C)
``kernel``      the ``extern "C"`` symbol; signature ``(const float* x, float* y, int n_rows, int n_cols)``
                unless ``args`` says otherwise (``(const float* y, const float* dy, float* dx, int n_rows,
                int n_cols)`` for a backward)
``args``        the order of the kernel's arguments, of its op's inputs (``in``, the input pointer; a
                backward's ``y`` or ``z`` and ``dy``; the fused forward's ``bias`` or ``mask`` pointer and
                its ``scale``, a float), ``out`` (the output pointer), ``rows``, ``cols`` and
                optionally ``stride`` (the row stride in elements, an int), comma-separated:
                ``args=out,in,rows,cols`` for ``(float* out, const float* in, int N, int C)`` as the seed
                posts and llm.c write them (default: the array inputs, then ``out,rows,cols``, then a
                ``scale``)
``launcher``    instead of a geometry: ``module:function``, a Python launcher called as
                ``function(kernel, x, out)`` with the compiled CuPy kernel and the arrays; the header then
                needs no ``geometry`` or ``threads`` (``lanes`` sets the bound, default 1: the loosest)
``algorithm``   ``safe`` (max, sum, normalise), ``online`` (running max and sum) or ``naive``
``geometry``    ``launcher`` (with ``launcher=``), ``thread-per-row``, ``warp-per-row``, ``block-per-row``,
                ``group-per-row``, ``grid-stride``,
                ``cluster-per-row`` (a thread-block cluster of ``cluster`` blocks shares each row) or
                ``split-row`` (a persistent, cooperatively launched grid of ``blocks_per_sm`` blocks per
                multiprocessor; groups of blocks share a row and meet at a barrier in global memory;
                the kernel takes two more arguments, a zeroed workspace of 7 * gridDim.x + 2 32-bit
                words, which it leaves zeroed, and the blocks per row, which divides gridDim.x)
``threads``     threads per block: a multiple of 32, at most 1024
``lanes``       threads that share one row (``group-per-row`` and ``grid-stride``; others derive it)
``blocks_per_sm``  grid size per multiprocessor for ``grid-stride`` and ``split-row`` (default 4)
``cluster``     blocks per row for ``cluster-per-row`` (the kernel's ``__cluster_dims__``)
``tile``        elements one block holds (``split-row``: a row takes at least ceil(C / tile) blocks)
``vector``      elements of one 16-byte access of a register tile, which a lane sums as a tree before
                adding them to its chain (default 1: a lane's elements in one chain); the bound's
                chain is then ceil((ceil(C / vector) + 1) / lanes) + log2(vector) + log2(lanes) + 1
``min_sm``      lowest compute capability, as 80, 90, ... (default 0: any)
``max_cols``    longest supported row, or ``none`` (default)
``smem_per_col`` dynamic shared memory, in bytes per column of the row (default 0)
``smem``        more dynamic shared memory, in bytes per block (default 0; a split-row stash)
``dtypes``      the element type the kernel's pointers have (default ``float32``): one, since an
                ``extern "C"`` symbol has one signature (a file declares a variant per type)
``convention``  ``torch`` (an all -inf row gives NaN, the default) or ``masked`` (it gives zeros)
``fast_math``   ``true`` when the kernel uses approximate intrinsics (it gets a looser bound)
``exp``         with ``fast_math=true``, the form of its exponentials (see ``bounds``): ``ex2``
                (ex2.approx of (x - m) * log2 e), ``shifted`` (``ExpArgs``: x * log2 e - s, times c;
                the default, the looser of the two) or ``folded`` (shifted, and 16-bit outputs take
                1/d inside the exponential: ``write_softmax``)
``rounding``    how 16-bit outputs are rounded from float: ``nearest`` (the default) or
                ``truncate`` (towards zero: the bound then allows a whole 16-bit ulp, not half)
``catches``     known-bad kernels only: the property that must catch its defect
``defect``      known-bad kernels only: what is wrong with it
``input``       known-bad kernels only: the one fixed trial the gallery hunts it with, for a defect
                the strategies never draw: ``past_2_31`` (the batch past element 2^31, 2^32 for
                16 bits: ``large_batch``), ``many_rows`` (70000 rows, past a grid's 65535 in y
                and z) or ``busy_stream`` (the output read once the caller's stream is done,
                with the GPU held busy: ``streams``)
``sanitizer``   known-bad kernels only: a compute-sanitizer tool that must flag it (``racecheck``
                for a race: the runner requires that tool to report it)
"""

from __future__ import annotations

import importlib.resources
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from . import ops


def _kernels_dir() -> Path:
    """The bundled kernels: package data in an installed wheel (``softmax_harness/kernels``),
    or the repository's ``kernels/`` beside the package in a source tree (which the wheel maps
    to the package data at build time)."""
    shipped = Path(str(importlib.resources.files("softmax_harness") / "kernels"))
    return shipped if shipped.is_dir() else Path(__file__).resolve().parent.parent / "kernels"


KERNELS_DIR = _kernels_dir()

ALGORITHMS = ("naive", "safe", "online")
ROLES = ("in", "y", "z", "dy", "bias", "mask", "out", "rows", "cols", "stride", "scale")
GEOMETRIES = ("launcher", "thread-per-row", "warp-per-row", "block-per-row", "group-per-row", "grid-stride",
              "cluster-per-row", "split-row")
CONVENTIONS = ("torch", "masked")
DTYPES = ("float32", "float16", "bfloat16")

_MARKER = "@variant"
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
INPUTS = ("past_2_31", "many_rows", "busy_stream")
_REQUIRED = ("name", "kernel", "algorithm", "geometry", "threads")
_KNOWN = set(_REQUIRED) | {"args", "launcher", "op", "lanes", "blocks_per_sm", "cluster", "tile", "vector",
    "min_sm", "max_cols", "smem_per_col", "smem", "dtypes", "convention", "fast_math", "exp", "rounding",
    "catches", "defect", "sanitizer", "input",
}
SANITIZERS = ("memcheck", "racecheck", "initcheck", "synccheck")
FAST_EXPS = ("ex2", "shifted", "folded")
ROUNDINGS = ("nearest", "truncate")


class HeaderError(ValueError):
    """A malformed ``@variant`` header; the message starts with ``file:line:``."""


class NoHeaderError(HeaderError):
    """A kernel file that declares no variant at all (discovery skips it, and says so)."""


@dataclass(frozen=True)
class VariantSpec:
    """What a kernel file declares about one of its variants."""

    name: str
    kernel: str
    algorithm: str
    geometry: str
    threads: int
    lanes: int
    path: Path
    line: int
    blocks_per_sm: int = 4
    cluster: int = 1
    tile: int = 0
    vector: int = 1  # elements a lane sums as a tree before its chain (a register tile's access)
    min_sm: int = 0
    max_cols: int | None = None
    smem_per_col: int = 0
    smem: int = 0
    dtypes: tuple[str, ...] = ("float32",)
    convention: str = "torch"
    fast_math: bool = False
    exp: str = "shifted"  # the fast exponentials' form (with fast_math)
    rounding: str = "nearest"  # of 16-bit outputs: nearest or truncate
    args: tuple[str, ...] = ("in", "out", "rows", "cols")  # the kernel's argument order, by role
    launcher: str | None = None  # module:function launching the kernel instead of a geometry
    catches: str | None = None
    defect: str | None = None
    sanitizer: str | None = None  # known-bad: the compute-sanitizer tool that must flag it
    input: str | None = None  # known-bad: the gallery's fixed trial (INPUTS)
    op: str = "softmax"  # what it computes (softmax_harness.ops)

    @property
    def known_bad(self) -> bool:
        return self.catches is not None

    @property
    def dtype(self) -> str:
        """The element type of the kernel's input and output."""
        return self.dtypes[0]

    @property
    def rows_per_block(self) -> int:
        """Rows one block handles (0 for a cluster-per-row kernel: a row spans blocks)."""
        return self.threads // self.lanes

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def _fail(path: Path, line: int, message: str) -> HeaderError:
    return HeaderError(f"{path}:{line}: {message}")


def _int(path, line, key, value, low=1, high=None) -> int:
    try:
        number = int(value)
    except ValueError:
        raise _fail(path, line, f"{key}={value!r} is not an integer") from None
    if number < low or (high is not None and number > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise _fail(path, line, f"{key}={number} is out of range ({bounds})")
    return number


def _choice(path, line, key, value, allowed) -> str:
    if value not in allowed:
        raise _fail(path, line, f"{key}={value!r} is not one of {', '.join(allowed)}")
    return value


def parse_header_line(text: str, path: Path, line: int) -> VariantSpec:
    """Parse the text after ``@variant`` on one line into a :class:`VariantSpec`."""
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise _fail(path, line, f"cannot split the header: {exc}") from None
    fields: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep or not key:
            raise _fail(path, line, f"expected key=value, got {token!r}")
        if key not in _KNOWN:
            raise _fail(path, line, f"unknown field {key!r} (known: {', '.join(sorted(_KNOWN))})")
        if key in fields:
            raise _fail(path, line, f"field {key!r} given twice")
        fields[key] = value
    if "launcher" in fields:
        if "geometry" in fields or "threads" in fields:
            raise _fail(path, line, "launcher= replaces geometry= and threads=; leave them out")
        if not re.match(r"^[\w.]+:\w+$", fields["launcher"]):
            raise _fail(path, line, f"launcher={fields['launcher']!r} is not module:function")
        fields.update(geometry="launcher", threads="32")
    elif fields.get("geometry") == "launcher":
        raise _fail(path, line, "geometry=launcher needs launcher=module:function")
    missing = [key for key in _REQUIRED if key not in fields]
    if missing:
        raise _fail(path, line, f"missing field(s): {', '.join(missing)}")

    for key in ("name", "kernel"):
        if not _NAME.match(fields[key]):
            raise _fail(path, line, f"{key}={fields[key]!r} is not an identifier")
    algorithm = _choice(path, line, "algorithm", fields["algorithm"], ALGORITHMS)
    geometry = _choice(path, line, "geometry", fields["geometry"], GEOMETRIES)
    threads = _int(path, line, "threads", fields["threads"], 1, 1024)
    if threads % 32:
        raise _fail(path, line, f"threads={threads} is not a multiple of 32")
    cluster = _int(path, line, "cluster", fields.get("cluster", "1"), 1, 16)
    if (geometry == "cluster-per-row") != ("cluster" in fields):
        raise _fail(path, line, "cluster= goes with geometry=cluster-per-row, and only with it")
    op = ops.of(_choice(path, line, "op", fields.get("op", "softmax"), ops.NAMES))
    roles = op.roles
    args = tuple(fields.get("args", ",".join(roles)).split(","))
    for role in args:
        _choice(path, line, "args", role, (*roles, "stride"))
    if sorted(set(args)) != sorted(args) or not set(roles) <= set(args):
        raise _fail(path, line, f"args={fields['args']} must name {', '.join(roles[:-1])} and {roles[-1]} "
                    "once each (and stride at most once)")
    if "args" in fields and geometry == "split-row":
        raise _fail(path, line, "geometry=split-row takes its op's arrays, out, rows and cols in that order, "
                    "then a workspace and the blocks a row: leave args= out")
    derived = {"thread-per-row": 1, "warp-per-row": 32, "block-per-row": threads,
               "cluster-per-row": threads * cluster, "split-row": threads}
    if geometry == "launcher":
        lanes = _int(path, line, "lanes", fields.get("lanes", "1"), 1)
    elif geometry in derived:
        if "lanes" in fields:
            raise _fail(path, line, f"lanes is implied by geometry={geometry}; leave it out")
        lanes = derived[geometry]
    else:
        lanes = _int(path, line, "lanes", fields.get("lanes", str(threads)), 1, threads)
        if threads % lanes or lanes & (lanes - 1) and lanes % 32:
            raise _fail(path, line, f"lanes={lanes} must divide threads={threads} "
                        "and be a power of two or a multiple of 32")
    if (geometry == "split-row") != ("tile" in fields):
        raise _fail(path, line, "tile= goes with geometry=split-row, and only with it")
    vector = _int(path, line, "vector", fields.get("vector", "1"), 1, 16)
    if vector & (vector - 1):
        raise _fail(path, line, f"vector={vector} must be a power of two")
    max_cols = fields.get("max_cols", "none")
    dtypes = tuple(fields.get("dtypes", "float32").split(","))
    for dtype in dtypes:
        _choice(path, line, "dtypes", dtype, DTYPES)
    if len(dtypes) > 1:
        raise _fail(path, line, f"dtypes={fields['dtypes']} names {len(dtypes)} types: one kernel symbol "
                    "takes one element type (declare a variant per type)")
    fast_math = _choice(path, line, "fast_math", fields.get("fast_math", "false"), ("true", "false"))
    if "exp" in fields and fast_math != "true":
        raise _fail(path, line, "exp= goes with fast_math=true")
    if ("catches" in fields) != ("defect" in fields):
        raise _fail(path, line, "a known-bad kernel declares both catches= and defect=")
    if "input" in fields and "catches" not in fields:
        raise _fail(path, line, "input= goes with a known-bad kernel (catches= and defect=)")
    if "sanitizer" in fields and "catches" not in fields:
        raise _fail(path, line, "sanitizer= goes with a known-bad kernel (catches= and defect=)")
    return VariantSpec(
        name=fields["name"],
        kernel=fields["kernel"],
        algorithm=algorithm,
        geometry=geometry,
        threads=threads,
        lanes=lanes,
        path=path,
        line=line,
        blocks_per_sm=_int(path, line, "blocks_per_sm", fields.get("blocks_per_sm", "4")),
        cluster=cluster,
        tile=_int(path, line, "tile", fields["tile"]) if "tile" in fields else 0,
        vector=vector,
        min_sm=_int(path, line, "min_sm", fields.get("min_sm", "0"), 0),
        max_cols=None if max_cols == "none" else _int(path, line, "max_cols", max_cols),
        smem_per_col=_int(path, line, "smem_per_col", fields.get("smem_per_col", "0"), 0),
        smem=_int(path, line, "smem", fields.get("smem", "0"), 0),
        dtypes=dtypes,
        convention=_choice(path, line, "convention", fields.get("convention", "torch"), op.conventions),
        fast_math=fast_math == "true",
        exp=_choice(path, line, "exp", fields.get("exp", "shifted"), FAST_EXPS),
        rounding=_choice(path, line, "rounding", fields.get("rounding", "nearest"), ROUNDINGS),
        args=args,
        launcher=fields.get("launcher"),
        catches=fields.get("catches"),
        input=_choice(path, line, "input", fields["input"], INPUTS) if "input" in fields else None,
        defect=fields.get("defect"),
        op=op.name,
        sanitizer=_choice(path, line, "sanitizer", fields["sanitizer"], SANITIZERS)
        if "sanitizer" in fields else None,
    )


def parse_file(path: Path) -> list[VariantSpec]:
    """All variants declared in one kernel file (a file must declare at least one)."""
    path = Path(path)
    specs = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        _, marker, rest = text.partition(_MARKER)
        if marker and text.lstrip().startswith("//"):
            specs.append(parse_header_line(rest, path, number))
    if not specs:
        raise NoHeaderError(f"{path}:1: no '// {_MARKER} ...' header line declares a variant")
    return specs


#: Folders under a root that hold other people's files: a project's virtual environment (the
#: package's own kernels among them), installed packages, version control.
_NOT_KERNELS = {"site-packages", "node_modules", "__pycache__"}


def kernel_files(root: Path) -> list[Path]:
    """The ``*.cu`` files under ``root``, but those in a hidden folder (``.venv``, ``.git``) or a
    folder of installed packages (:data:`_NOT_KERNELS`) below it."""
    root = Path(root)
    return [path for path in sorted(root.rglob("*.cu")) if not any(
        part.startswith(".") or part in _NOT_KERNELS for part in path.relative_to(root).parts[:-1])]


def skipped(root: Path = KERNELS_DIR) -> list[tuple[Path, str]]:
    """The ``*.cu`` files under ``root`` that discovery leaves out, each with the reason."""
    out = []
    for path in kernel_files(root):
        try:
            parse_file(path)
        except NoHeaderError:
            out.append((path, f"no '// {_MARKER} ...' header line"))
    return out


def discover(root: Path = KERNELS_DIR) -> list[VariantSpec]:
    """Every variant under ``root`` (``*.cu`` and ``known_bad/*.cu``), names checked unique; a file
    without a header is left out (:func:`skipped` names it), a malformed header raises."""
    specs: list[VariantSpec] = []
    for path in kernel_files(root):
        try:
            specs.extend(parse_file(path))
        except NoHeaderError:
            continue
    seen: dict[str, VariantSpec] = {}
    for spec in specs:
        if spec.name in seen:
            raise _fail(spec.path, spec.line, f"variant name {spec.name!r} is already "
                        f"declared at {seen[spec.name].where}")
        seen[spec.name] = spec
    return specs
