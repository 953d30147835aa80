"""Python callables as subjects: ``module:function`` computing the softmax over the last axis of
an (N, C) array, as ``fn(x) -> y`` or ``fn(x, out)``, on NumPy or CuPy arrays or torch tensors
(Triton kernels, torch functions, CuPy RawKernels); or another op that it declares
(``"op": "softmax_backward"``: ``fn(y, dy) -> dx`` or ``fn(y, dy, out)``).

A callable may declare what its bound depends on in an attribute::

    def my_softmax(x, out): ...
    my_softmax.__softmax_harness__ = {"algorithm": "online", "lanes": 32, "arrays": "torch"}

Keys: ``op`` (``softmax``, ``softmax_backward``, ``log_softmax``, ``log_softmax_backward``,
``scaled_softmax_bias``, ``scaled_softmax_mask``, ``scaled_softmax_causal``), ``arrays``
(``numpy``, ``cupy`` or ``torch``), ``device`` (``cuda`` for a callable that needs a GPU, a Triton
kernel say: without one it is not run, as a kernel is not; ``cpu``), ``algorithm`` (``safe``,
``online``, ``naive``), ``lanes`` (threads that share a row), ``dtype`` (one element type, or a
list of those it takes: each is checked as a subject of its own, ``module:function:dtype``),
``convention`` (``torch`` or ``masked``), ``fast_math``, ``exp``, ``rounding`` and ``vector`` (as
in a kernel header), ``max_cols``, ``strided`` (False: it is never given rows further apart than
their length, so ``strided_rows`` does not judge it; by default a callable takes any array, as
torch's softmax does). The stated defaults: ``algorithm=online`` and ``lanes=1``, the loosest bound
the harness knows (a chain of C sequential steps), float32, the torch convention; ``arrays`` found
by calling it on a small input (on a GPU: CuPy, then torch on the GPU, then NumPy, then torch on
the CPU; without one: NumPy, then torch on the CPU).
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np

from . import dtypes, gpu, ops
from .registry import ALGORITHMS, CONVENTIONS, DTYPES, FAST_EXPS, ROUNDINGS
from .subject import Subject

ARRAYS = ("numpy", "cupy", "torch")
DEVICES = ("cpu", "cuda")
DECLARED = {"arrays", "device", "algorithm", "lanes", "dtype", "convention", "fast_math", "exp", "rounding",
            "max_cols", "name", "op", "vector", "strided"}


class SubjectError(ValueError):
    """A target that cannot be a subject; the message says why in one line."""


class NeedsGPU(SubjectError):
    """A callable that runs on a GPU, where there is none: not run (as a kernel is), not refused."""


class ResultError(ValueError):
    """A callable ran, and returned a result of another shape or element type than its input."""


def is_callable_ref(ref: str) -> bool:
    """Whether ``ref`` names a Python callable (``module:function``, or ``module:function:dtype``)."""
    module, colon, attr = ref.partition(":")
    return bool(colon and module and attr and "/" not in module and not module.endswith(".cu"))


def split_dtype(ref: str) -> tuple[str, str | None]:
    """``module:function:dtype`` -> (``module:function``, dtype); (``ref``, None) without one."""
    base, colon, last = ref.rpartition(":")
    if colon and ":" in base and last in DTYPES:
        return base, last
    return ref, None


def expand(ref: str) -> list[str]:
    """``ref`` once for each element type its callable declares (``module:function:dtype``) where
    it declares several, else as given; a callable that does not load stays as given (the
    subject's own tests then say why)."""
    base, dtype = split_dtype(ref)
    if dtype is not None or not is_callable_ref(ref):
        return [ref]
    try:
        listed = _dtypes(_declared(load(base), base), base)
    except SubjectError:
        return [ref]
    return [f"{base}:{d}" for d in listed] if len(listed) > 1 else [ref]


def _dtypes(declared: dict, ref: str) -> tuple[str, ...]:
    """The element types a callable declares (float32 where it declares none)."""
    given = declared.get("dtype", "float32")
    listed = (given,) if isinstance(given, str) else tuple(given) if isinstance(given, (list, tuple)) else ()
    if not listed or any(d not in DTYPES for d in listed) or len(set(listed)) < len(listed):
        raise SubjectError(f"subject {ref!r}: dtype={given!r} is not one of {', '.join(DTYPES)}, "
                           "or a list of them")
    return listed


def load(ref: str, what: str = "subject"):
    """The object that ``module:function`` names (``function`` may be dotted: ``module:Class.method``)."""
    module_name, colon, attr = ref.partition(":")
    if not (colon and module_name and attr):
        raise SubjectError(f"{what} {ref!r} is not module:function")
    if ":" in attr:
        raise SubjectError(f"{what} {ref!r}: {attr.rpartition(':')[2]!r} is not an element type "
                           f"({', '.join(DTYPES)})")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any error while importing the user's module is theirs to see
        raise SubjectError(f"{what} {ref!r}: module {module_name!r} does not import "
                           f"({type(exc).__name__}: {exc})") from None
    found = module
    for part in attr.split("."):
        if not hasattr(found, part):
            raise SubjectError(f"{what} {ref!r}: module {module_name!r} has no {attr!r}")
        found = getattr(found, part)
    if not callable(found):
        raise SubjectError(f"{what} {ref!r} is a {type(found).__name__}, not a callable")
    return found


def arity(fn, ref: str, names: tuple[str, ...] = ("x",)) -> int:
    """How many arguments ``fn`` takes: one an input (``names``) for ``fn(x) -> y`` (``fn(y, dy) ->
    dx``), one more for ``fn(x, out)``; SubjectError for anything else."""
    inputs = len(names)
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        raise SubjectError(f"subject {ref!r}: its signature cannot be read; wrap it in a def taking "
                           "(x) or (x, out)") from None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = [p for p in positional if p.default is p.empty]
    if len(required) in (inputs, inputs + 1):
        return len(required)
    if len(required) < inputs and len(positional) >= inputs:
        return min(inputs + 1, len(positional))
    given = ", ".join(p.name for p in required) or "none"
    args = ", ".join(names)
    want = f"fn({args}) -> {'y' if inputs == 1 else 'out'} or fn({args}, out)"
    raise SubjectError(f"subject {ref!r} takes {len(required)} required arguments ({given}): expected {want}")


def _declared(fn, ref: str) -> dict:
    given = getattr(fn, "__softmax_harness__", None) or {}
    if not isinstance(given, dict):
        raise SubjectError(f"subject {ref!r}: __softmax_harness__ is a {type(given).__name__}, not a dict "
                           "of what it declares")
    declared = dict(given)
    unknown = set(declared) - DECLARED
    if unknown:
        raise SubjectError(f"subject {ref!r}: unknown keys in __softmax_harness__: "
                           f"{', '.join(sorted(unknown))} "
                           f"(known: {', '.join(sorted(DECLARED))})")
    for key, allowed in (("op", ops.NAMES), ("arrays", ARRAYS), ("device", DEVICES),
                         ("algorithm", ALGORITHMS), ("convention", CONVENTIONS), ("exp", FAST_EXPS),
                         ("rounding", ROUNDINGS)):
        if key in declared and declared[key] not in allowed:
            raise SubjectError(f"subject {ref!r}: {key}={declared[key]!r} is not one of {', '.join(allowed)}")
    if (declared.get("arrays"), declared.get("device")) in (("cupy", "cpu"), ("numpy", "cuda")):
        raise SubjectError(f"subject {ref!r}: {declared['arrays']} arrays do not live on "
                           f"device={declared['device']}")
    for key in ("strided", "fast_math"):
        if key in declared and type(declared[key]) is not bool:
            raise SubjectError(f"subject {ref!r}: {key}={declared[key]!r} is not True or False")
    for key in ("lanes", "max_cols"):
        if key in declared and (type(declared[key]) is not int or declared[key] < 1):
            raise SubjectError(f"subject {ref!r}: {key}={declared[key]!r} is not a whole number from 1")
    if "name" in declared and (not isinstance(declared["name"], str) or not declared["name"].strip()):
        raise SubjectError(f"subject {ref!r}: name={declared['name']!r} is not a name")
    vector = declared.get("vector", 1)
    if type(vector) is not int or not 1 <= vector <= 16 or vector & (vector - 1):
        raise SubjectError(f"subject {ref!r}: vector={vector!r} is not a power of two from 1 to 16")
    return declared


def _torch_view(x):
    """A zero-copy torch view of a NumPy or CuPy array (bfloat16 through an int16 view)."""
    import torch

    bf16 = x.dtype.name == "bfloat16"
    if type(x).__module__.startswith("cupy"):
        t = torch.from_dlpack(x.view("int16") if bf16 else x)
    else:
        t = torch.from_numpy(x.view(np.int16) if bf16 else x)
    return t.view(torch.bfloat16) if bf16 else t


class Adapted:
    """``fn`` as the harness calls every subject: ``adapted(*inputs, out)`` on arrays of the harness's
    array module (NumPy for NumPy and torch-CPU subjects, CuPy for CuPy and torch-CUDA ones)."""

    def __init__(self, fn, ref: str, arrays: str, takes_out: bool):
        self.fn, self.ref, self.arrays, self.takes_out = fn, ref, arrays, takes_out

    def __call__(self, *arrays):
        *inputs, out = arrays
        x = inputs[0]
        if self.arrays == "torch":
            tin, tout = [_torch_view(a) if np.ndim(a) else float(a) for a in inputs], _torch_view(out)
            if self.takes_out:
                self.fn(*tin, tout)
            else:
                y = self.fn(*tin)
                self._like_input(y, tin[0])
                tout.copy_(y)
            if tout.is_cuda:  # torch's stream: the harness reads the output next
                import torch

                torch.cuda.synchronize()
            return out
        if self.takes_out:
            self.fn(*inputs, out)
            return out
        y = self.fn(*inputs)
        self._like_input(y, x)
        out[...] = y
        return out

    def _like_input(self, y, x) -> None:
        """A returned result has its input's shape and element type (a silent conversion into the
        output would hide a result computed in another type, or broadcast one of another shape)."""
        shape, dtype = getattr(y, "shape", None), getattr(y, "dtype", None)
        if shape is None or dtype is None:
            what = "None" if y is None else f"a {type(y).__name__} (not an array)"
        elif tuple(shape) != tuple(x.shape) or dtype != x.dtype:
            what = f"{type(y).__name__} of shape {tuple(shape)} and type {dtype}"
        else:
            return
        raise ResultError(f"{self.ref} returned {what} for an input of shape {tuple(x.shape)} and type "
                          f"{x.dtype}: a result must have its input's shape and type")


def _candidates(device: str | None = None) -> list[tuple[str, str]]:
    """(arrays, device) in the order they are tried on a callable that does not declare them
    (on ``device`` alone, where it declares that)."""
    cpu = [("numpy", "cpu"), ("torch", "cpu")]
    every = ([("cupy", "cuda"), ("torch", "cuda")] if gpu.available() else []) + cpu
    return [c for c in every if device in (None, c[1])]


def _probe(fn, ref: str, takes_out: bool, op, dtype: str, on: str | None = None) -> tuple[str, str]:
    tried = []
    needs_cupy = False
    element = dtypes.of(dtype).numpy()
    for arrays, device in _candidates(on):
        try:
            xp = _xp(device)
            built = op.build(np.linspace(-2, 2, 16, dtype=np.float32).reshape(2, 8))
            inputs = [xp.asarray(a if a.dtype == bool else a.astype(element)) if np.ndim(a) else a
                      for a in built]
            out = xp.empty_like(inputs[0])
            Adapted(fn, ref, arrays, takes_out)(*inputs, out)
            if device == "cuda":
                xp.cuda.get_current_stream().synchronize()
            return arrays, device  # it runs on these (whether it is right is the battery's to say)
        except ResultError as exc:  # it takes these arrays, and returns what no subject may
            raise SubjectError(f"subject {ref!r}: {exc}") from None
        except Exception as exc:  # the probe tells which arrays the callable takes
            why = (str(exc).strip().splitlines() or [""])[0][:160]
            tried.append(f"{arrays} ({device}): {type(exc).__name__}" + (f": {why}" if why else ""))
            needs_cupy |= _cupy_missing(exc)
    if needs_cupy and not gpu.available():  # a CuPy callable where no CuPy array can be made: a GPU's to run
        raise NeedsGPU(f"subject {ref!r} uses CuPy, and no CUDA device is visible")
    raise SubjectError(f"subject {ref!r} runs on no array kind tried ({'; '.join(tried)}); "
                       "declare __softmax_harness__ = {'arrays': ...}")


def _cupy_missing(exc: BaseException) -> bool:
    """Whether ``exc`` is CuPy's absence (not installed) or its failure without a device."""
    if isinstance(exc, ImportError):
        return (exc.name or "").partition(".")[0] in ("cupy", "cupyx")
    return type(exc).__module__.startswith(("cupy", "cupyx"))  # cupy_backends' CUDARuntimeError too


def describe(ref: str) -> list[dict]:
    """What ``check`` needs of each subject that ``ref`` names (one for each element type it
    declares): ``{"ref", "name", "op", "strided"}``, or ``{"ref", "error"}`` where it cannot be
    a subject (``{"ref", "needs_gpu"}`` where it can, on a GPU). Plain data, for
    :func:`~softmax_harness.run.isolation.run_isolated`: loading and probing run the user's
    code, which may crash or hang the process."""
    found = []
    for each in expand(ref):
        try:
            made = subject(each)
        except NeedsGPU as exc:
            found.append({"ref": each, "needs_gpu": str(exc)})
        except SubjectError as exc:
            found.append({"ref": each, "error": str(exc)})
        else:
            found.append({"ref": each, "name": made.name, "op": made.op, "strided": made.strided})
    return found


def _xp(device: str):
    if device == "cpu":
        return np
    import cupy

    return cupy


def subject(ref: str) -> Subject:
    """The subject for the callable ``module:function`` (in its first declared element type), or
    ``module:function:dtype``."""
    base, wanted = split_dtype(ref)
    fn = load(base)
    declared = _declared(fn, base)
    listed = _dtypes(declared, base)
    if wanted is not None and "dtype" in declared and wanted not in listed:
        raise SubjectError(f"subject {ref!r}: {base!r} declares dtype {', '.join(listed)}, not {wanted}")
    try:  # the harness makes every input on the host in the subject's type first
        dtypes.of(wanted or listed[0]).numpy()
    except TypeError as exc:
        raise SubjectError(f"subject {ref!r}: {exc}") from None
    op = ops.of(declared.get("op", "softmax"))
    names = tuple("x" if role == "in" else role for role in op.inputs)
    takes_out = arity(fn, ref, names) == len(op.inputs) + 1
    device = declared.get("device") or ("cuda" if declared.get("arrays") == "cupy" else None)
    if device == "cuda" and not gpu.available():
        why = "device=cuda" if "device" in declared else "arrays=cupy"
        raise NeedsGPU(f"subject {ref!r}: {why}, and no CUDA device is visible")
    if "arrays" in declared:
        arrays = declared["arrays"]
        device = device or ("cuda" if arrays == "torch" and gpu.available() else "cpu")
    else:
        arrays, device = _probe(fn, ref, takes_out, op, wanted or listed[0], device)
    return Subject(
        name=declared.get("name", base) + (f":{wanted}" if wanted else ""),
        fn=Adapted(fn, ref, arrays, takes_out), xp=_xp(device),
        lanes=int(declared.get("lanes", 1)), algorithm=declared.get("algorithm", "online"),
        convention=declared.get("convention", "torch"), fast_math=bool(declared.get("fast_math", False)),
        exp=declared.get("exp", "shifted"), rounding=declared.get("rounding", "nearest"),
        dtype=wanted or listed[0],
        repro=f"--subject {ref}", max_cols=declared.get("max_cols"), op=op.name,
        vector=declared.get("vector", 1), strided=declared.get("strided", True))
