"""A compatibility shim for a torchvision wheel whose compiled ops do not match the installed torch.

With torch 2.13.0+cpu, the only torchvision of the matching version (0.28.0) on the package index is a CUDA
build whose C++ extension does not load. Its Python code then registers fake kernels for
`torchvision::nms` and `torchvision::qnms` on import, which fails with `RuntimeError: operator
torchvision::nms does not exist`; transformers imports torchvision when it is installed, so that error
also stops every transformers model (MiniLM through sentence-transformers, the local model) from loading.

`ensure_torchvision_importable()` must run before the first import of torchvision, sentence_transformers,
transformers or open_clip. When `import torchvision` fails with that error, it defines the two operator
schemas (without kernels) and imports torchvision again: its transforms and models then work, its compiled
ops (nms, roi_align...) stay unusable, and nothing in Daemon calls them. With a matching torch/torchvision
(or no torchvision at all) the import simply succeeds and nothing is defined.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
import threading
from typing import Any

logger = logging.getLogger(__name__)

_SCHEMAS = (
    "nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "qnms(Tensor qdets, Tensor scores, float iou_threshold) -> Tensor",
)
_MISSING_OP = "torchvision::"


class _ShimState:
    """Process-wide by necessity: torch's operator registry is process-wide, and the `Library` handle
    that holds the defined schemas must stay referenced, or torch removes them again."""

    lock = threading.RLock()  # re-entrant: the import finder may fire while the shim imports
    done = False
    library: Any = None


def ensure_torchvision_importable() -> bool:
    """Make `import torchvision` (and so transformers and open_clip) work; idempotent and thread-safe.

    Returns True when the schemas had to be defined (in this call or an earlier one), False when
    torchvision imported as it is or is not installed. Any other import error propagates unchanged.
    """
    with _ShimState.lock:
        if not _ShimState.done:
            remove_import_hook()  # its work is being done now; and it must not fire inside this import
            _import_or_patch()
            _ShimState.done = True
        return _ShimState.library is not None


def _import_or_patch() -> None:
    if "torchvision" not in sys.modules and importlib.util.find_spec("torchvision") is None:
        return
    try:
        import torchvision  # noqa: F401
    except RuntimeError as error:
        if _MISSING_OP not in str(error):
            raise
        logger.info("torchvision's compiled ops do not match torch (%s); defining their schemas", error)
        _purge_torchvision()
        _ShimState.library = _define_schemas()
        import torchvision  # noqa: F401,F811


def _purge_torchvision() -> None:
    """Forget the half-imported torchvision so the next import runs its module code again."""
    for name in [n for n in sys.modules if n == "torchvision" or n.startswith("torchvision.")]:
        del sys.modules[name]


def _define_schemas() -> Any:
    import torch

    library = torch.library.Library("torchvision", "FRAGMENT")
    for schema in _SCHEMAS:
        try:
            library.define(schema)
        except RuntimeError as error:  # defined already (by torchvision's own library, or another shim)
            logger.debug("torchvision schema %r not defined again: %s", schema, error)
    return library


_WATCHED = frozenset({"torchvision", "transformers", "sentence_transformers", "open_clip", "timm"})


class _ShimOnImport:
    """A `sys.meta_path` finder that runs the shim just before the first import of a watched package,
    then steps aside; it never finds a module itself. For test sessions and scripts that import those
    packages directly rather than through Daemon's loaders."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        """Run the shim once on the first watched import; always defer to the real finders."""
        if name.partition(".")[0] in _WATCHED:
            remove_import_hook()
            ensure_torchvision_importable()
        return None


def install_import_hook() -> None:
    """Run `ensure_torchvision_importable` lazily, at the first import of torchvision, transformers,
    sentence_transformers, open_clip or timm (costs nothing until then); idempotent."""
    with _ShimState.lock:
        if _ShimState.done or any(isinstance(f, _ShimOnImport) for f in sys.meta_path):
            return
        sys.meta_path.insert(0, _ShimOnImport())


def remove_import_hook() -> None:
    """Take the finder of `install_import_hook` out of `sys.meta_path` (no-op when absent)."""
    with _ShimState.lock:
        sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ShimOnImport)]
