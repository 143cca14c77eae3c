"""Structured logs: every line is one JSON object."""

from __future__ import annotations

import json
import logging
import sys

from graph_service.logs import JsonLines


def record(msg: str, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            exc_info = sys.exc_info()
    return logging.LogRecord("graph_service.x", logging.ERROR, __file__, 1, msg, ("a \"quoted\" value",), exc_info)


def test_a_record_is_one_json_line_with_its_fields() -> None:
    line = JsonLines().format(record("got %s"))
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["msg"] == 'got a "quoted" value' and parsed["level"] == "ERROR"
    assert parsed["logger"] == "graph_service.x" and "time" in parsed


def test_an_exception_is_kept_inside_the_line() -> None:
    parsed = json.loads(JsonLines().format(record("failed %s", exc=True)))
    assert "RuntimeError: boom" in parsed["error"]
