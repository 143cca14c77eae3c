"""The explorer page at /explorer: static files the package ships (Cytoscape.js vendored, no CDN),
talking to /graphql with the token the person gives it."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "explorer_static"


async def explorer_page(request: Request) -> FileResponse:
    return FileResponse(STATIC / "index.html", media_type="text/html")


def explorer_routes() -> list[BaseRoute]:
    """/explorer (the page) and /explorer/static/* (its script, style and the vendored library)."""
    return [Route("/explorer", explorer_page), Mount("/explorer/static", StaticFiles(directory=STATIC))]
