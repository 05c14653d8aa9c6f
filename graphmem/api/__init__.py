"""The GraphQL API (strawberry + Starlette): ``create_app`` in ``graphmem.api.app``.

Only this package imports the web stack; it maps GraphQL onto ``MemoryService`` and back.
"""
