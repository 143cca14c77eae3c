"""Settings from the environment: where the knowledge state and the belief layer are kept is a variable each,
checked."""

from __future__ import annotations

import pytest

from graph_service.cli import main
from graph_service.config import Settings


def test_the_knowledge_state_is_held_in_the_graph_unless_the_environment_says_memory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_SERVICE_KNOWLEDGE", raising=False)
    assert Settings.from_env().knowledge == "graph" == Settings().knowledge
    monkeypatch.setenv("GRAPH_SERVICE_KNOWLEDGE", " Memory ")
    assert Settings.from_env().knowledge == "memory"
    monkeypatch.setenv("GRAPH_SERVICE_KNOWLEDGE", "")
    assert Settings.from_env().knowledge == "graph"


def test_a_knowledge_mode_it_does_not_take_is_refused_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GRAPH_SERVICE_KNOWLEDGE", "disk")
    with pytest.raises(ValueError, match="GRAPH_SERVICE_KNOWLEDGE must be one of memory, graph, not 'disk'"):
        Settings.from_env()
    assert main(["fingerprint"]) == 2  # the command line says so and exits as for bad usage
    assert "GRAPH_SERVICE_KNOWLEDGE must be one of memory, graph" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["beliefs", "stream", "questions"])
def test_each_state_is_held_in_the_graph_unless_the_environment_says_memory(monkeypatch: pytest.MonkeyPatch,
                                                                            option: str) -> None:
    variable = f"GRAPH_SERVICE_{option.upper()}"
    monkeypatch.delenv(variable, raising=False)
    assert getattr(Settings.from_env(), option) == "graph" == getattr(Settings(), option)
    monkeypatch.setenv(variable, " Memory ")
    assert getattr(Settings.from_env(), option) == "memory"
    monkeypatch.setenv(variable, "elsewhere")
    with pytest.raises(ValueError, match=f"{variable} must be one of memory, graph, not 'elsewhere'"):
        Settings.from_env()
