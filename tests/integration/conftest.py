"""Fixtures of the integration tests that train tiny models (Trainer, GRPO): no Hub, no network,
one torch thread."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: Environment variables that keep transformers, datasets, evaluate and the Hub offline.
OFFLINE_FLAGS = ("HF_HUB_OFFLINE", "HF_EVALUATE_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")
#: The same flags as the libraries hold them once imported: (module, attribute).
OFFLINE_CONSTANTS = (
    ("huggingface_hub.constants", "HF_HUB_OFFLINE"),
    ("evaluate.config", "HF_EVALUATE_OFFLINE"),
    ("datasets.config", "HF_DATASETS_OFFLINE"),
)
CACHES = (("HF_HOME", "hf"), ("HF_DATASETS_CACHE", "datasets"), ("HF_EVALUATE_CACHE", "evaluate"),
          ("HF_HUB_CACHE", "hub"), ("HF_METRICS_CACHE", "metrics"))


@pytest.fixture(autouse=True)
def torch_grad_mode_restored() -> Iterator[None]:
    """Each test leaves torch's global grad mode as it found it: lighteval 0.13 turns gradients off
    for the whole process when its Pipeline imports ``lighteval/models/transformers/
    transformers_model.py`` (``torch.set_grad_enabled(False)`` at module level), and the Trainer and
    GRPO tests after it would then fail with "element 0 of tensors does not require grad"."""
    torch = sys.modules.get("torch")
    before = torch.is_grad_enabled() if torch is not None else None
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_grad_enabled(True if before is None else before)


@pytest.fixture
def offline_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """No Hub, no network (a connection to anything but localhost raises), caches under tmp_path."""
    for var in OFFLINE_FLAGS:
        monkeypatch.setenv(var, "1")
    for var, sub in CACHES:
        monkeypatch.setenv(var, str(tmp_path / "cache" / sub))
    monkeypatch.setenv("WANDB_DISABLED", "true")
    # the libraries read the flags when imported: patch the values of those imported already
    for module, attribute in OFFLINE_CONSTANTS:
        if module in sys.modules:
            monkeypatch.setattr(sys.modules[module], attribute, True)

    real_connect = socket.socket.connect
    who = request.node.name

    def local_only(sock: socket.socket, address: Any) -> Any:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in ("127.0.0.1", "::1", "localhost"):
            raise RuntimeError(f"{who}: network access attempted: {address!r}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", local_only)


@pytest.fixture
def one_thread() -> Iterator[None]:
    """Tiny models train ~8x faster on one thread than on many contending ones."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
