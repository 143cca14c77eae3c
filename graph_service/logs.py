"""Structured logs: one JSON object per line on stderr, the service's and uvicorn's alike."""

from __future__ import annotations

import json
import logging
from typing import Any


class JsonLines(logging.Formatter):
    """Formats a record as {"time", "level", "logger", "msg"} (plus "error" with a traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"time": self.formatTime(record), "level": record.levelname,
                                "logger": record.name, "msg": record.getMessage()}
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


def log_config(level: str = "INFO") -> dict[str, Any]:
    """A logging dictConfig routing the service's and uvicorn's loggers through JsonLines."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonLines}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": level},
        "loggers": {name: {"handlers": ["stderr"], "level": level, "propagate": False}
                    for name in ("uvicorn", "uvicorn.error", "uvicorn.access")},
    }
