"""Validation kept per document text (api/validating.Validation): the rules that read only
the document answer from the cache, the ones that read the request run every time."""

from __future__ import annotations

from starlette.testclient import TestClient

from graph_service.api import validating
from tests.integration.graphql_client import gql

NOTE = 'mutation($t: String!) { note(text: $t) { seq } }'


def test_the_same_document_is_judged_by_each_request_s_own_variables(client: TestClient) -> None:
    for text, refused in (("a\x00b", True), ("clean", False), ("again\x00", True), ("x" * 20_001, True),
                          ("clean again", False)):
        answer = gql(client, NOTE, {"t": text})
        assert ("errors" in answer) == refused, (text[:10], answer)
    seqs = gql(client, "{ journal(first: 10) { edges { node { seq payload } } } }")
    texts = [e["node"]["payload"] for e in seqs["data"]["journal"]["edges"]]
    assert len(texts) == 2 and all("clean" in t for t in texts)


def test_a_document_s_errors_are_the_same_every_time(client: TestClient) -> None:
    answers = [gql(client, "{ head { seq nonsense } }") for _ in range(3)]
    assert answers[0]["errors"] and all(a == answers[0] for a in answers)
    assert "nonsense" in answers[0]["errors"][0]["message"]


def test_the_cache_is_bounded(client: TestClient) -> None:
    for i in range(validating.DOCUMENT_CACHE_SIZE + 20):
        gql(client, f"{{ head {{ seq }} a{i}: head {{ hash }} }}")
    assert len(validating._DOCUMENT_ERRORS) <= validating.DOCUMENT_CACHE_SIZE


def test_a_document_is_parsed_once_and_its_parse_errors_answered_every_time(client: TestClient) -> None:
    # strawberry's ParserCache (api/schema.py): a document sent again is not parsed again; one that does
    # not parse (a syntax error, too many tokens) is never kept and answers its error every time.
    from strawberry.extensions.parser_cache import _get_parse_cache

    from graph_service.api.schema import MAX_TOKENS, PARSED_DOCUMENTS

    cache = _get_parse_cache(PARSED_DOCUMENTS)
    document = "{ head { seq } parsedOnce: head { hash } }"
    gql(client, document)
    hits = cache.cache_info().hits
    assert gql(client, document)["data"]["parsedOnce"]
    assert cache.cache_info().hits == hits + 1
    for bad, said in (("{ head { seq }", "Syntax Error"), ("{ head { " + "seq " * MAX_TOKENS + "} }", "tokens")):
        answers = [gql(client, bad) for _ in range(2)]
        assert said in answers[0]["errors"][0]["message"] and answers[1] == answers[0]
    assert cache.cache_info().currsize <= PARSED_DOCUMENTS
