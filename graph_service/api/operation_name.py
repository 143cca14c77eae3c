"""The GraphQL spec's operation rule: a document of several operations runs one only when the request
names it. strawberry runs the first instead (it fills the missing name in from the document), which
runs an operation the client may never have meant to send."""

from __future__ import annotations

from graphql import GraphQLError, OperationDefinitionNode, ValidationContext, ValidationRule

from graph_service.api.validating import REQUEST_RULES, operation_validated


def unnamed_choice_error(count: int) -> GraphQLError:
    return GraphQLError(f"The document holds {count} operations and the request names none: "
                        "say which to run with operationName.",
                        extensions={"code": "BAD_USER_INPUT", "field": "operationName"})


class OperationNameRule(ValidationRule):
    """Reports a document of several operations sent without an operationName (a request rule:
    api/validating.Validation)."""

    def __init__(self, validation_context: ValidationContext) -> None:
        super().__init__(validation_context)
        # The name as the request gave it: `operation_name` is strawberry's guess (the first operation's).
        provided = operation_validated()._provided_operation_name
        count = sum(isinstance(d, OperationDefinitionNode) for d in validation_context.document.definitions)
        if provided is None and count > 1:
            validation_context.report_error(unnamed_choice_error(count))


REQUEST_RULES.add(OperationNameRule)
