"""Multi-turn episodes in a server session, with Gymnasium's reset/step shapes."""
from __future__ import annotations

from typing import Any
from urllib.parse import quote

from .client import CanvasgymError, Client


class EpisodeClient:
    """One multi-turn episode in a server session.

    >>> with EpisodeClient(env="editing") as ep:
    ...     obs, info = ep.reset(seed=3)
    ...     obs, reward, terminated, truncated, info = ep.step('{"actions": [], "done": true}')

    reset and step change the session, so they are resent only when the server did nothing (a refused connection, a
    503); state and close are retried like scoring.
    """

    def __init__(self, env: str = "editing", url: str | None = None, client: Client | None = None):
        self.env = env
        self.client = client or Client(url)
        self.session_id: str | None = None

    def reset(self, seed: int | None = None, task: dict[str, Any] | None = None, options: dict[str, Any] | None = None):
        body: dict[str, Any] = {"env": self.env}
        if seed is not None:
            body["seed"] = seed
        if task is not None:
            body["task"] = task
        if options:
            body["options"] = options
        if self.session_id is not None:
            body["session_id"] = self.session_id
        out = self.client.request("POST", "/reset", body, idempotent=False)
        self.session_id = out["session_id"]
        return out["observation"], out["info"]

    def step(self, action: str | dict[str, Any]):
        if self.session_id is None:
            raise CanvasgymError("step() before reset(): reset the episode first")
        out = self.client.request("POST", "/step", {"session_id": self.session_id, "action": action}, idempotent=False)
        return out["observation"], out["reward"], out["terminated"], out["truncated"], out["info"]

    def state(self) -> dict[str, Any]:
        if self.session_id is None:
            raise CanvasgymError("state() before reset(): reset the episode first")
        return self.client.request("GET", f"/state?session_id={quote(self.session_id)}")

    def close(self) -> None:
        if self.session_id is not None:
            try:
                self.client.request("POST", "/close", {"session_id": self.session_id})
            finally:
                self.session_id = None

    def __enter__(self) -> "EpisodeClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
