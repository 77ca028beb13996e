"""Shared test setup: nothing may reach a hub; caches live in a temporary folder."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_CACHE = tempfile.mkdtemp(prefix="toolcall_f1_test_cache_")
for var, value in {
    "HF_EVALUATE_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_OFFLINE": "1",
    "HF_HOME": os.path.join(_CACHE, "hf"),
    "HF_DATASETS_CACHE": os.path.join(_CACHE, "datasets"),
    "HF_MODULES_CACHE": os.path.join(_CACHE, "modules"),
    "TRANSFORMERS_OFFLINE": "1",
    "GRADIO_ANALYTICS_ENABLED": "False",
    "TOKENIZERS_PARALLELISM": "false",
}.items():
    os.environ.setdefault(var, value)


def pytest_sessionstart(session) -> None:  # noqa: ARG001
    """On CI every optional piece must be present: a test that skips there hides a failure."""
    if os.environ.get("CI", "").lower() not in ("1", "true", "yes"):
        return
    import importlib.util

    missing = [m for m in ("torch", "transformers", "playwright", "evaluate", "datasets", "gradio") if importlib.util.find_spec(m) is None]
    if not os.path.exists("/usr/bin/chromium"):
        missing.append("/usr/bin/chromium")
    if missing:
        raise RuntimeError(f"CI is missing {missing}; `make test` should have installed them")
