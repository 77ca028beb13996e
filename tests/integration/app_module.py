"""``app.py`` (the Space demo, not part of the package) imported once for the app tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def load_app() -> ModuleType:
    """Import ``app.py`` from the repository root, or return it if it already is (the root on
    ``sys.path``, as on the Space, where app.py imports its sibling ``app_render``)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    if "app" in sys.modules and getattr(sys.modules["app"], "__file__", None) == str(ROOT / "app.py"):
        return sys.modules["app"]
    spec = importlib.util.spec_from_file_location("app", ROOT / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["app"] = module
    spec.loader.exec_module(module)
    return module
