"""Fixtures of the API tests: the app on a fresh embedded store, with the lifespan run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from graph_service.api.app import create_app
from graph_service.config import Settings


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The API on an empty embedded store in this test's own folder."""
    with TestClient(create_app(Settings(data_dir=tmp_path / "data"))) as c:
        yield c
