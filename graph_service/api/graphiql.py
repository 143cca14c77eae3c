"""GraphiQL from files the package ships (graphiql, react and react-dom vendored from the npm pins; a
test checks the copies), so the page works offline and with tokens: the page is static and needs
none, its requests to /graphql carry the token the person puts in GraphiQL's Headers tab."""

from __future__ import annotations

from pathlib import Path

from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles

STATIC = Path(__file__).resolve().parent / "graphiql_static"
GRAPHIQL_PAGE = STATIC / "index.html"


def graphiql_routes() -> list[BaseRoute]:
    """/graphiql/static/*: the page's script and style and the vendored libraries (the page is /graphql)."""
    return [Mount("/graphiql/static", StaticFiles(directory=STATIC))]
