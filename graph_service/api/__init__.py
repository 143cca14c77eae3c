"""The GraphQL API (strawberry) and the ASGI app (Starlette) around the service."""
