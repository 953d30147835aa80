"""softmax-harness: correctness, fuzzing and benchmarking for CUDA softmax kernels.

The front door only re-exports; each name lives in the module named for what it holds.
"""

from .bound import Bound, bind
from .catalog import RootError, UnknownVariantError, known_bad, split_ref, variant, variants
from .compiler import KernelCompileError
from .dispatch import log_softmax, log_softmax_backward, scaled_softmax, softmax, softmax_backward
from .reference import reference_softmax
from .registry import KERNELS_DIR, HeaderError, VariantSpec
from .subject import Subject
from .variant import Variant

__all__ = [
    "KERNELS_DIR", "Bound", "HeaderError", "KernelCompileError", "RootError", "Subject",
    "UnknownVariantError", "Variant", "VariantSpec", "bind", "known_bad", "log_softmax",
    "log_softmax_backward", "reference_softmax", "scaled_softmax", "softmax", "softmax_backward",
    "split_ref", "variant", "variants",
]
