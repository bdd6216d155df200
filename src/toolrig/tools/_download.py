"""``download_file``: fetch a URL into a file in the sandbox, safely.

Requests to private, loopback, link-local and other non-public addresses are refused unless the
tool allows them (server-side request forgery: a model must not reach the machine's own
services or the cloud metadata endpoint). The host is resolved once and every address it has is
checked; the request then goes to that checked address (the TLS name stays the host's), so DNS
cannot answer differently between check and use. Redirects are followed by hand, each checked
the same way. The body is streamed to a temporary file and renamed into place when complete.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import httpx
from typing_extensions import TypedDict

from toolrig.core.context._context import ToolContext
from toolrig.core.define._base import BaseTool, action
from toolrig.core.model._errors import ErrorCode, RetryableToolError, ToolError
from toolrig.core.model._spec import ToolAnnotations
from toolrig.tools._netguard import NetPolicy, guarded_stream
from toolrig.tools._sandbox import Sandbox

__all__ = ["DownloadTool"]

_SAFE_NAME: Final = re.compile(r"[^A-Za-z0-9._-]+")


class DownloadOutput(TypedDict):
    url: str
    final_url: str
    """The URL the content came from, after redirects."""
    local_path: str
    bytes: int
    content_type: str | None


class DownloadTool(BaseTool):
    """Download a URL (http or https) to a file in the workspace."""

    name = "download_file"
    tags = ("web", "files")
    layer = "tools"
    annotations = ToolAnnotations(
        read_only=False, destructive=True, idempotent=True, open_world=True
    )

    def __init__(
        self,
        root: str | os.PathLike[str] | Sandbox,
        *,
        allow_private: bool = False,
        allowed_addresses: Sequence[str] = (),
        max_bytes: int = 100_000_000,
        download_timeout: float = 60.0,
        max_redirects: int = 5,
        user_agent: str = "toolrig-download/0.1",
    ) -> None:
        """``allow_private`` lets requests reach private, loopback and link-local addresses;
        ``allowed_addresses`` lists addresses or networks (``"127.0.0.1"``, ``"10.1.0.0/16"``)
        allowed in any case. ``download_timeout`` bounds the whole download, in seconds."""
        super().__init__()
        self.sandbox = root if isinstance(root, Sandbox) else Sandbox(root)
        self.policy = NetPolicy(allow=tuple(allowed_addresses), allow_private=allow_private)
        self.max_bytes = max_bytes
        self.download_timeout = download_timeout
        self.max_redirects = max_redirects
        self.user_agent = user_agent

    @action(
        name="download_file",
        output_description="Where the file was saved, its size and content type.",
    )
    async def download(
        self,
        url: str,
        path: str | None = None,
        overwrite: bool = False,
        ctx: ToolContext | None = None,
    ) -> DownloadOutput:
        """Download a URL into a file in the workspace and return its local path.

        Only public http(s) addresses can be reached. Read the saved file afterwards with the
        file or documents tool.

        Args:
            url: The http or https URL to fetch.
            path: File (or existing folder) in the workspace to save to. Default: the URL's
                file name in the workspace root.
            overwrite: Replace the file if it exists.
        """
        _parse(url)
        try:
            async with asyncio.timeout(self.download_timeout):
                return await self._download(url, path, overwrite, ctx)
        except TimeoutError:
            raise _timeout(url, self.download_timeout) from None

    async def _download(
        self, url: str, path: str | None, overwrite: bool, ctx: ToolContext | None
    ) -> DownloadOutput:
        headers = {"User-Agent": self.user_agent, "Accept-Encoding": "identity"}
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(self.download_timeout), follow_redirects=False, trust_env=False
        ) as client:
            try:
                async with guarded_stream(
                    client, url, self.policy, max_redirects=self.max_redirects, headers=headers
                ) as fetched:
                    response = fetched.response
                    _check_status(response, url)
                    target = self._target(path, httpx.URL(fetched.url), overwrite)
                    size = await self._save(response, target, overwrite, url, ctx)
                    return DownloadOutput(
                        url=url,
                        final_url=fetched.url,
                        local_path=self.sandbox.relative(target),
                        bytes=size,
                        content_type=response.headers.get("content-type"),
                    )
            except httpx.TimeoutException:
                raise _timeout(url, self.download_timeout) from None
            except httpx.HTTPError as exc:
                raise RetryableToolError(
                    f"cannot fetch {url}: {type(exc).__name__}: {exc}",
                    code=ErrorCode.EXECUTION_ERROR,
                    hint="Check the URL; the server may be down.",
                ) from None

    # -- saving ----------------------------------------------------------------------------
    def _target(self, path: str | None, url: httpx.URL, overwrite: bool) -> Path:
        name = _SAFE_NAME.sub("_", url.path.rstrip("/").rsplit("/", 1)[-1]).strip("._")
        name = name or "download"
        target = self.sandbox.resolve(path or name)
        found = self.sandbox.lstat(target)
        if found is not None and stat.S_ISDIR(found.st_mode):
            target = self.sandbox.resolve(os.path.join(path or ".", name))
            found = self.sandbox.lstat(target)
        if found is not None and not overwrite:
            raise ToolError(
                f"`{self.sandbox.relative(target)}` already exists.",
                code=ErrorCode.INVALID_ARGUMENTS,
                hint="Pass overwrite=true to replace it, or give another path.",
            )
        return target

    async def _save(
        self,
        response: httpx.Response,
        target: Path,
        overwrite: bool,
        url: str,
        ctx: ToolContext | None,
    ) -> int:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > self.max_bytes:
            raise _too_big(url, int(declared), self.max_bytes)
        size = 0
        with self.sandbox.atomic_writer(target, create_dirs=True, exclusive=not overwrite) as out:
            try:
                async for chunk in response.aiter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise _too_big(url, size, self.max_bytes)
                    if ctx is not None and ctx.cancelled:
                        raise ToolError("the download was cancelled", code=ErrorCode.CANCELLED)
                    out.write(chunk)
            except httpx.TimeoutException:
                raise _timeout(url, self.download_timeout) from None
            except httpx.HTTPError as exc:
                raise RetryableToolError(
                    f"the download of {url} broke off: {type(exc).__name__}",
                    code=ErrorCode.EXECUTION_ERROR,
                ) from None
        return size


def _parse(url: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError):
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise ToolError(
            f"{url!r} is not an http(s) URL",
            code=ErrorCode.INVALID_ARGUMENTS,
            hint="Give a full URL such as https://example.com/file.pdf.",
        )
    return parsed


def _check_status(response: httpx.Response, url: str) -> None:
    status = response.status_code
    if status < 400:
        return
    message = f"{url} answered HTTP {status} {response.reason_phrase}"
    if status == 404:
        raise ToolError(message, code=ErrorCode.NOT_FOUND, hint="Check the URL.")
    if status == 429:
        raise RetryableToolError(message, code=ErrorCode.RATE_LIMITED, hint="Retry later.")
    if status in (401, 403):
        raise ToolError(message, code=ErrorCode.PERMISSION_DENIED)
    raise ToolError(message, code=ErrorCode.EXECUTION_ERROR, retryable=status >= 500)


def _too_big(url: str, size: int, limit: int) -> ToolError:
    return ToolError(
        f"{url} is larger than the {limit:,}-byte download limit (at least {size:,} bytes)",
        code=ErrorCode.EXECUTION_ERROR,
        hint="Download a smaller file.",
    )


def _timeout(url: str, limit: float) -> ToolError:
    return ToolError(
        f"downloading {url} took longer than {limit:g} s",
        code=ErrorCode.TIMEOUT,
        retryable=True,
        hint="Retry later or download a smaller file.",
    )
