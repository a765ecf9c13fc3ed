"""``@monologue("scope", **config)``: one decorator turns narration on for a function.

Works on plain and async functions and on sync and async generators (every yielded object is
passed on unchanged and fed to the session). Each call gets its own session; on exit,
normal or not, the completion is emitted, the buffer flushed and the final narrative
delivered before the call returns (bounded by ``final_wait_s``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import AsyncGenerator, Callable, Generator
from typing import Any, TypeVar, overload

from ._session import Session, _current

F = TypeVar("F", bound=Callable[..., Any])


@overload
def monologue(scope: F, /) -> F: ...
@overload
def monologue(scope: str | None = None, /, **config: Any) -> Callable[[F], F]: ...


def monologue(scope: Any = None, /, **config: Any) -> Any:
    """Narrate every call of the decorated function as agent ``scope``.

    ``@monologue`` alone uses the function's qualified name as the scope.
    """
    if callable(scope):
        return _decorate(scope, scope.__qualname__, {})
    if scope is not None and not isinstance(scope, str):
        raise TypeError(f"@monologue scope must be a string, got {type(scope).__name__}")

    def decorator(fn: F) -> F:
        return _decorate(fn, scope or fn.__qualname__, config)

    return decorator


def _decorate(fn: F, scope: str, config: dict[str, Any]) -> F:
    if inspect.isasyncgenfunction(fn):
        wrapper: Callable[..., Any] = _wrap_async_generator(fn, scope, config)
    elif inspect.isgeneratorfunction(fn):
        wrapper = _wrap_generator(fn, scope, config)
    elif inspect.iscoroutinefunction(fn):
        wrapper = _wrap_coroutine(fn, scope, config)
    else:
        wrapper = _wrap_function(fn, scope, config)
    return functools.wraps(fn)(wrapper)  # type: ignore[return-value]


def _wrap_function(fn: Callable[..., Any], scope: str, config: dict[str, Any]) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        s = Session(scope, **config).start()
        token = _current.set(s)
        try:
            result = fn(*args, **kwargs)
        except BaseException as exc:
            s.close(error=exc)
            raise
        else:
            s.close(result=result)
            return result
        finally:
            _current.reset(token)

    return wrapper


def _wrap_coroutine(fn: Callable[..., Any], scope: str, config: dict[str, Any]) -> Any:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        s = Session(scope, **config).start()
        token = _current.set(s)
        try:
            result = await fn(*args, **kwargs)
        except BaseException as exc:
            await s.aclose(error=exc)
            raise
        else:
            await s.aclose(result=result)
            return result
        finally:
            _current.reset(token)

    return wrapper


def _wrap_generator(fn: Callable[..., Any], scope: str, config: dict[str, Any]) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        s = Session(scope, **config).start()
        inner = fn(*args, **kwargs)
        result: Any = None
        error: BaseException | None = None
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                # The session is current only while the inner generator runs, so it never
                # leaks into the consumer's code between two items.
                token = _current.set(s)
                try:
                    item = inner.throw(thrown) if thrown is not None else inner.send(sent)
                except StopIteration as stop:
                    result = stop.value
                    return result
                finally:
                    _current.reset(token)
                thrown = None
                s.feed_later(item)
                try:
                    sent = yield item
                except GeneratorExit:
                    inner.close()
                    raise
                except BaseException as exc:  # consumer's .throw(): pass it on
                    thrown, sent = exc, None
        except GeneratorExit:
            raise
        except BaseException as exc:
            error = exc
            raise
        finally:
            s.close(result=result, error=error)

    return wrapper


def _wrap_async_generator(fn: Callable[..., Any], scope: str, config: dict[str, Any]) -> Any:
    async def wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
        s = Session(scope, **config).start()
        inner = fn(*args, **kwargs)
        error: BaseException | None = None
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                token = _current.set(s)
                try:
                    if thrown is not None:
                        item = await inner.athrow(thrown)
                    else:
                        item = await inner.asend(sent)
                except StopAsyncIteration:
                    return
                finally:
                    _current.reset(token)
                thrown = None
                s.feed_later(item)
                try:
                    sent = yield item
                except GeneratorExit:
                    await inner.aclose()
                    raise
                except BaseException as exc:
                    thrown, sent = exc, None
        except GeneratorExit:
            raise
        except BaseException as exc:
            error = exc
            raise
        finally:
            await s.aclose(error=error)

    return wrapper
