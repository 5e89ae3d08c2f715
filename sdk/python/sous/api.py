"""Queries Sous's context API (``POST /v1/context``, spec 4.5) and assembles the answer into
context a script can put in front of a model.

The context API answers from the index the Sous daemon prepared; a query never asks a model.
Where it is: the ``base_url`` argument, else the ``SOUS_CONTEXT_URL`` environment variable, else
``http://127.0.0.1:8472`` (the default of ``sous proxy --context-only``).
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import List, Optional

DEFAULT_BASE_URL = "http://127.0.0.1:8472"
"""Where ``sous proxy --context-only`` listens by default."""

BASE_URL_ENV = "SOUS_CONTEXT_URL"
"""Environment variable naming the context API when ``base_url`` is not given."""

DEFAULT_TOP_N = 5
"""Files asked for when ``top_n`` is not given."""

DEFAULT_TIMEOUT_SECONDS = 10.0

_CLIENT_ID = re.compile(r"^[A-Za-z0-9._:@/-]{1,100}$")


class SousError(Exception):
    """The context API refused the query (4xx) or failed (5xx): ``status``, ``code`` and ``where`` say why."""

    def __init__(self, message: str, status: int = 0, code: str = "", where: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.where = where


class SousUnavailableError(SousError):
    """No context API answers at the URL, or its index is not ready yet (HTTP 503)."""


@dataclass(frozen=True)
class ContextItem:
    """One selected file: its rank, path, lines, the snippet and why it was chosen."""

    rank: int
    path: str
    score: float
    tokens: int
    start_line: int
    end_line: int
    text: str
    rationale: List[str] = field(default_factory=list)


@dataclass(frozen=True)
class ContextPackage:
    """What ``query`` returns.

    ``injected_context`` is the assembled context, ready to be put in front of a model (for example as
    a system message); ``items`` are the selected files it was assembled from, best first.
    """

    query_text: str
    repo_path: str
    client_id: Optional[str]
    items: List[ContextItem]
    injected_context: str
    files_indexed: int
    index_state: str
    generation: int


def _base_url(base_url: Optional[str]) -> str:
    url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
    if not re.match(r"^https?://", url):
        raise ValueError(f"base_url must start with http:// or https://, got {url!r}")
    return url.rstrip("/")


def _assemble(repo_path: str, items: List[ContextItem]) -> str:
    if not items:
        return ""
    lines = [f"Repository context prepared by Sous for {repo_path} (read-only; paths relative to the repository root):"]
    for item in items:
        why = "; ".join(item.rationale) or "ranked by the index"
        lines.append(f"## {item.path}:{item.start_line}-{item.end_line} ({why})")
        lines.append(item.text.rstrip("\n"))
    return "\n".join(lines)


def _item(raw: dict) -> ContextItem:
    snippet = raw.get("snippet") or {}
    rationale = [f"{r.get('signal')}: {r.get('detail')}" for r in raw.get("rationale") or []]
    return ContextItem(
        rank=int(raw["rank"]),
        path=str(raw["path"]),
        score=float(raw["score"]),
        tokens=int(raw.get("tokens", 0)),
        start_line=int(snippet.get("start_line", 0)),
        end_line=int(snippet.get("end_line", 0)),
        text=str(snippet.get("text", "")),
        rationale=rationale,
    )


def query(
    query_text: str,
    repo_path: str,
    client_id: Optional[str] = None,
    *,
    top_n: int = DEFAULT_TOP_N,
    budget_tokens: Optional[int] = None,
    base_url: Optional[str] = None,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> ContextPackage:
    """Asks the context API which files of ``repo_path`` matter for ``query_text``.

    ``repo_path`` is the repository the context API serves (it must exist on this machine; it is
    recorded on the package and named in ``injected_context``). ``client_id`` is sent as
    ``X-Sous-Client`` so each script's activity stays its own. Raises ``ValueError`` for bad
    arguments, ``SousUnavailableError`` when no API answers or its index is not ready, and
    ``SousError`` for any other refusal.
    """
    if not isinstance(query_text, str) or not query_text.strip():
        raise ValueError("query_text must be a non-empty string: the task, the error or the code you are asking about")
    if not isinstance(repo_path, str) or not os.path.isdir(repo_path):
        raise ValueError(f"repo_path must be an existing repository directory, got {repo_path!r}")
    if client_id is not None and not _CLIENT_ID.match(client_id):
        raise ValueError("client_id must be 1-100 characters of letters, digits and . _ : @ / -")
    if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
        raise ValueError("top_n must be an integer >= 1")
    if budget_tokens is not None and (not isinstance(budget_tokens, int) or isinstance(budget_tokens, bool) or budget_tokens < 1):
        raise ValueError("budget_tokens must be an integer >= 1")

    body = {"prompt": query_text, "top_n": top_n}
    if budget_tokens is not None:
        body["budget_tokens"] = budget_tokens
    url = _base_url(base_url) + "/v1/context"
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if client_id is not None:
        headers["X-Sous-Client"] = client_id
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as err:
        raise _api_error(err) from None
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise SousUnavailableError(f"no Sous context API answers at {url} ({reason}); start it with: sous proxy --context-only --path <repo>", code="unreachable") from None

    repo = os.path.abspath(repo_path)
    items = [_item(raw) for raw in answer.get("items", [])]
    stats = answer.get("stats") or {}
    return ContextPackage(
        query_text=query_text,
        repo_path=repo,
        client_id=client_id,
        items=items,
        injected_context=_assemble(repo, items),
        files_indexed=int(stats.get("files_indexed", 0)),
        index_state=str(stats.get("index_state", "")),
        generation=int(stats.get("generation", 0)),
    )


def _api_error(err: urllib.error.HTTPError) -> SousError:
    try:
        payload = json.loads(err.read().decode("utf-8"))
        detail = payload.get("error") or {}
    except (ValueError, AttributeError):
        detail = {}
    message = str(detail.get("message") or f"the context API answered HTTP {err.code}")
    code = str(detail.get("code") or "")
    where = detail.get("where")
    cls = SousUnavailableError if err.code == 503 else SousError
    return cls(message, status=err.code, code=code, where=where)
