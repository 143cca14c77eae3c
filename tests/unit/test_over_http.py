"""The HTTP layer's pure parts: media-type negotiation and telling a request error from a field error."""

from __future__ import annotations

import pytest
from graphql import GraphQLError
from strawberry.types import ExecutionResult

from graph_service.api.over_http import GRAPHQL_RESPONSE_MEDIA, JSON_MEDIA, is_request_error, negotiate


@pytest.mark.parametrize(("accept", "media"), [
    (None, JSON_MEDIA),
    ("", JSON_MEDIA),
    ("*/*", JSON_MEDIA),
    ("text/html", JSON_MEDIA),  # nothing acceptable named: the default, rather than a 406
    ("application/*", JSON_MEDIA),
    (GRAPHQL_RESPONSE_MEDIA, GRAPHQL_RESPONSE_MEDIA),
    (f"{GRAPHQL_RESPONSE_MEDIA}, application/json", GRAPHQL_RESPONSE_MEDIA),  # a tie: the spec's own type
    (f"application/json, {GRAPHQL_RESPONSE_MEDIA};q=0.9", JSON_MEDIA),
    (f"application/json;q=0.5, {GRAPHQL_RESPONSE_MEDIA};q=0.9", GRAPHQL_RESPONSE_MEDIA),
    (f"{GRAPHQL_RESPONSE_MEDIA};q=0, */*", JSON_MEDIA),  # q=0: not acceptable
    (f"{GRAPHQL_RESPONSE_MEDIA.upper()};charset=utf-8", GRAPHQL_RESPONSE_MEDIA),
    (f"{GRAPHQL_RESPONSE_MEDIA};q=oops", JSON_MEDIA),
])
def test_negotiation(accept: str | None, media: str) -> None:
    assert negotiate(accept) == media


def test_a_request_error_has_no_data_and_no_path() -> None:
    assert is_request_error(ExecutionResult(data=None, errors=[GraphQLError("Syntax Error")]))
    assert not is_request_error(ExecutionResult(data=None, errors=[GraphQLError("boom", path=["head"])]))
    assert not is_request_error(ExecutionResult(data={"head": None}, errors=[GraphQLError("x")]))
    assert not is_request_error(ExecutionResult(data={"head": {"seq": 1}}, errors=None))
