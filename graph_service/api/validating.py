"""The operation a validation rule is checking, for rules defined once rather than per request.

graphql-core takes validation rules as classes, and a rule needs the request's own data (its role,
variables, operationName). Defining a rule class inside each request's hook gave every request four
new classes, and graphql-core's Visitor inspects every AST kind when a subclass is made: measured,
validation was 3.8 ms of a 5.2 ms `note` over GraphQL. So the rules are module-level classes and
read the request's execution context from here.
"""

from __future__ import annotations

from contextvars import ContextVar

from strawberry.types.execution import ExecutionContext

_OPERATION: ContextVar[ExecutionContext] = ContextVar("graph_service_validating")


def validating(execution_context: ExecutionContext) -> None:
    """Name the operation about to be validated (each extension's `on_operation` calls this before it
    yields). Not reset afterwards: every operation sets it before its validation reads it, and a
    request's task (with its copy of the context) ends with the request."""
    _OPERATION.set(execution_context)


def operation_validated() -> ExecutionContext:
    """The execution context of the operation being validated (set by `validating`)."""
    return _OPERATION.get()
