"""JSON over HTTP to one canvasgym server: retries with backoff, and batches split to the server's limits."""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

DEFAULT_URL = "http://127.0.0.1:8000"

# Answers that say "not now" rather than "not this": the same request may succeed a moment later.
RETRY_STATUSES = frozenset({500, 502, 503, 504})
# Chunks of one batch scored at once: the server scores on one thread per core.
PARALLEL_CHUNKS = 4


class CanvasgymError(RuntimeError):
    """The server refused a request (4xx/5xx, with its message) or could not be reached."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


def _refused(reason: Any) -> bool:
    """Whether a connection failure happened before the request left (safe to resend anything)."""
    return isinstance(reason, ConnectionRefusedError)


class Client:
    """A client for one canvasgym server.

    Failed requests are retried `retries` times, waiting `backoff` seconds and doubling (with jitter, at most
    `max_backoff`; a 503's Retry-After is honoured): on 5xx answers and lost connections for requests that may be
    sent twice (scoring, reading), and only on refused connections and 503s (the server did nothing) for the others
    (a step of an episode). Batches of rows are split to the server's `max_batch` and `max_body_bytes`, read from
    GET /health once.
    """

    def __init__(
        self,
        url: str | None = None,
        timeout: float = 120.0,
        reward: str | None = None,
        api_key: str | None = None,
        retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
    ):
        self.url = (url or os.environ.get("CANVASGYM_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout
        self.reward = reward
        self.api_key = api_key or os.environ.get("CANVASGYM_API_KEY") or None
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._limits: dict[str, Any] | None = None

    def _once(self, method: str, path: str, data: bytes | None) -> Any:
        # The server takes POST bodies only as declared JSON (415 otherwise).
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=self.timeout) as res:
            return json.loads(res.read().decode("utf-8"))

    def request(self, method: str, path: str, body: Any = None, idempotent: bool = True) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            wait = min(self.max_backoff, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)
            try:
                return self._once(method, path, data)
            except urllib.error.HTTPError as err:
                text = err.read().decode("utf-8", "replace")
                if err.code in RETRY_STATUSES and (idempotent or err.code == 503) and not last:
                    after = err.headers.get("retry-after") if err.headers else None
                    if after and after.isdigit():
                        wait = min(float(after), 30.0)
                    time.sleep(wait)
                    continue
                try:
                    detail = json.loads(text)["error"]
                    message, code = detail["message"], detail.get("code")
                except (ValueError, KeyError, TypeError):
                    message, code = text[:200], None
                tries = f" (after {attempt + 1} tries)" if attempt else ""
                raise CanvasgymError(f"{method} {path}: {err.code} {message}{tries}", err.code, code) from None
            except (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout) as err:
                reason = err.reason if isinstance(err, urllib.error.URLError) else err
                if (idempotent or _refused(reason)) and not last:
                    time.sleep(wait)
                    continue
                raise CanvasgymError(
                    f"cannot reach canvasgym at {self.url} (set CANVASGYM_URL): {reason} (after {attempt + 1} tries)"
                ) from None

    def health(self) -> dict[str, Any]:
        return self.request("GET", "/health")

    def limits(self, refresh: bool = False) -> dict[str, Any]:
        """The server's limits (GET /health), read once."""
        if self._limits is None or refresh:
            self._limits = self.health()["limits"]
        return self._limits

    def _chunks(self, items: list[Any]) -> list[list[Any]]:
        """Consecutive chunks within the server's rows-per-request and body-size limits."""
        limits = self.limits()
        max_rows, max_bytes = int(limits["max_batch"]), int(limits["max_body_bytes"])
        # Room for what wraps the items: the array's brackets, or /get_reward's three keys.
        overhead = 64
        chunks: list[list[Any]] = [[]]
        size = overhead
        for item in items:
            n = len(json.dumps(item).encode("utf-8")) + 1
            if chunks[-1] and (len(chunks[-1]) >= max_rows or size + n > max_bytes):
                chunks.append([])
                size = overhead
            chunks[-1].append(item)
            size += n
        return chunks

    def _split(self, items: list[Any], send: Any) -> list[Any]:
        """Sends `items` in chunks (a few at a time) and joins the answers in order; a server whose limit was lowered
        since /health was read (a restart) answers 413, and the limits are read again once."""
        for refreshed in (False, True):
            chunks = self._chunks(items)
            try:
                if len(chunks) == 1:
                    return send(chunks[0])
                with ThreadPoolExecutor(max_workers=min(PARALLEL_CHUNKS, len(chunks))) as pool:
                    return [x for part in pool.map(send, chunks) for x in part]
            except CanvasgymError as err:
                if err.status != 413 or refreshed:
                    raise
                self.limits(refresh=True)

    def score(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows {prompt, completion, spec?} -> {reward, components, errors} per row, in order (as `canvasgym score`)."""
        if not rows:
            return []
        path = "/reward" if self.reward is None else f"/reward?reward={self.reward}"
        return self._split(rows, lambda chunk: self.request("POST", path, chunk)["results"])

    def get_reward(self, queries: list[str], prompts: list[str], labels: list[Any] | None = None) -> dict[str, Any]:
        """OpenRLHF's remote reward (POST /get_reward), split like score(): {rewards, scores, extra_logs}."""
        labels = list(labels) if labels is not None else [""] * len(queries)
        if not (len(queries) == len(prompts) == len(labels)):
            raise ValueError(f"queries, prompts and labels go together one to one: got {len(queries)}, {len(prompts)}, {len(labels)}")
        if not queries:
            return {"rewards": [], "scores": [], "extra_logs": {}}
        path = "/get_reward" if self.reward is None else f"/get_reward?reward={self.reward}"

        def send(chunk: list[tuple[str, str, Any]]) -> list[tuple[float, float, dict[str, float]]]:
            q, p, l = (list(x) for x in zip(*chunk))
            out = self.request("POST", path, {"query": q, "prompts": p, "labels": l})
            logs = out["extra_logs"]
            return [(out["rewards"][i], out["scores"][i], {k: v[i] for k, v in logs.items()}) for i in range(len(q))]

        rows = self._split(list(zip(queries, prompts, labels)), send)
        names = rows[0][2].keys()
        return {
            "rewards": [r for r, _, _ in rows],
            "scores": [s for _, s, _ in rows],
            "extra_logs": {k: [logs[k] for _, _, logs in rows] for k in names},
        }
