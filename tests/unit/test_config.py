"""Settings from the environment: where the knowledge state and the belief layer are kept is a variable each,
checked."""

from __future__ import annotations

import pytest

from graph_service.cli import main
from graph_service.config import Settings


def test_the_knowledge_state_is_in_memory_unless_the_environment_says_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_KNOWLEDGE", raising=False)
    assert Settings.from_env().knowledge == "memory"
    monkeypatch.setenv("GRAPH_SERVICE_KNOWLEDGE", " Graph ")
    assert Settings.from_env().knowledge == "graph"


def test_a_knowledge_mode_it_does_not_take_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPH_SERVICE_KNOWLEDGE", "disk")
    with pytest.raises(ValueError, match="GRAPH_SERVICE_KNOWLEDGE must be one of memory, graph, not 'disk'"):
        Settings.from_env()
    assert main(["fingerprint"]) == 2  # the command line says so and exits as for bad usage
    assert "GRAPH_SERVICE_KNOWLEDGE must be one of memory, graph" in capsys.readouterr().err


def test_the_belief_layer_is_in_memory_unless_the_environment_says_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_BELIEFS", raising=False)
    assert Settings.from_env().beliefs == "memory"
    monkeypatch.setenv("GRAPH_SERVICE_BELIEFS", "GRAPH")
    assert Settings.from_env().beliefs == "graph"
    monkeypatch.setenv("GRAPH_SERVICE_BELIEFS", "elsewhere")
    with pytest.raises(ValueError, match="GRAPH_SERVICE_BELIEFS must be one of memory, graph, not 'elsewhere'"):
        Settings.from_env()


def test_the_stream_is_in_memory_unless_the_environment_says_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_STREAM", raising=False)
    assert Settings.from_env().stream == "memory"
    monkeypatch.setenv("GRAPH_SERVICE_STREAM", " Graph ")
    assert Settings.from_env().stream == "graph"
    monkeypatch.setenv("GRAPH_SERVICE_STREAM", "disk")
    with pytest.raises(ValueError, match="GRAPH_SERVICE_STREAM must be one of memory, graph, not 'disk'"):
        Settings.from_env()


def test_the_questions_are_in_memory_unless_the_environment_says_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_QUESTIONS", raising=False)
    assert Settings.from_env().questions == "memory"
    monkeypatch.setenv("GRAPH_SERVICE_QUESTIONS", "graph")
    assert Settings.from_env().questions == "graph"
    monkeypatch.setenv("GRAPH_SERVICE_QUESTIONS", "cloud")
    with pytest.raises(ValueError, match="GRAPH_SERVICE_QUESTIONS must be one of memory, graph, not 'cloud'"):
        Settings.from_env()
