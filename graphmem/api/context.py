"""The typed per-request context every resolver receives as ``info.context``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from strawberry.types import Info as _Info

from graphmem.api.loaders import Loaders, build_loaders, run_sync
from graphmem.api.security import OPEN, Principal
from graphmem.readers import Readers
from graphmem.service import MemoryService
from graphmem.settings import Settings

T = TypeVar("T")


@dataclass(slots=True)
class Context:
    """Services, the caller and this request's DataLoaders (never shared across requests)."""

    service: MemoryService
    settings: Settings
    readers: Readers
    loaders: Loaders
    principal: Principal = OPEN
    request: Any = None
    response: Any = None

    @classmethod
    def build(cls, service: MemoryService, settings: Settings, *,
              principal: Principal | None = None, request: Any = None,
              response: Any = None) -> Context:
        readers = Readers(service)
        return cls(service=service, settings=settings, readers=readers,
                   loaders=build_loaders(readers), principal=principal or OPEN,
                   request=request, response=response)

    def authorize(self, user_id: str, field: str = "userId") -> str:
        """``user_id`` if the caller may touch it; ForbiddenError (naming the field) if not."""
        self.principal.authorize(user_id, field)
        return user_id

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a blocking service call in a worker thread."""
        return await run_sync(fn, *args, **kwargs)


Info = _Info[Context, None]
