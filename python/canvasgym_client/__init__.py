"""canvasgym as a reward and an environment for Python trainers, over the canvasgym HTTP server.

Standard library only. The server's address comes from CANVASGYM_URL (default http://127.0.0.1:8000), and its
bearer token, for a server started with --api-key, from CANVASGYM_API_KEY.

- reward_func(prompts, completions, **kwargs): TRL GRPOTrainer's reward_funcs signature.
- compute_score(data_source, solution_str, ground_truth, extra_info=None): verl's custom reward function.
- EpisodeClient: multi-turn episodes (reset / step / state / close) in a server session.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any, Iterable

__all__ = ["CanvasgymError", "Client", "EpisodeClient", "compute_score", "reward_func"]

DEFAULT_URL = "http://127.0.0.1:8000"


class CanvasgymError(RuntimeError):
    """The server refused a request (4xx/5xx, with its message) or could not be reached."""

    def __init__(self, message: str, status: int | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.code = code


class Client:
    """A thin JSON-over-HTTP client for one canvasgym server."""

    def __init__(self, url: str | None = None, timeout: float = 120.0, reward: str | None = None, api_key: str | None = None):
        self.url = (url or os.environ.get("CANVASGYM_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout
        self.reward = reward
        self.api_key = api_key or os.environ.get("CANVASGYM_API_KEY") or None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        # The server takes POST bodies only as declared JSON (415 otherwise).
        headers = {"content-type": "application/json"}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")
            try:
                detail = json.loads(text)["error"]
                raise CanvasgymError(f"{method} {path}: {err.code} {detail['message']}", err.code, detail.get("code")) from None
            except (ValueError, KeyError, TypeError):
                raise CanvasgymError(f"{method} {path}: {err.code} {text[:200]}", err.code) from None
        except urllib.error.URLError as err:
            raise CanvasgymError(f"cannot reach canvasgym at {self.url} (set CANVASGYM_URL): {err.reason}") from None

    def score(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Rows {prompt, completion, spec?} -> {reward, components, errors} per row, in order (as `canvasgym score`)."""
        path = "/reward" if self.reward is None else f"/reward?reward={self.reward}"
        return self.request("POST", path, rows)["results"]


def _text(message: Any, role: str) -> str:
    """A string, or the content of the last `role` message of a conversational (list of messages) value."""
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        for m in reversed(message):
            if isinstance(m, dict) and m.get("role") == role:
                return str(m.get("content", ""))
        return ""
    raise TypeError(f"expected a string or a list of messages, got {type(message).__name__}")


def _spec(value: Any) -> Any:
    if value is None or value == "":
        return None
    return json.loads(value) if isinstance(value, str) else value


_clients: dict[tuple[str, str | None], Client] = {}


def _client() -> Client:
    url, api_key = os.environ.get("CANVASGYM_URL") or DEFAULT_URL, os.environ.get("CANVASGYM_API_KEY") or None
    if (url, api_key) not in _clients:
        _clients[url, api_key] = Client(url, api_key=api_key)
    return _clients[url, api_key]


def reward_func(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
    """TRL GRPOTrainer reward function: one float per completion.

    Takes standard (string) and conversational (list of messages) prompts and completions. A dataset column named
    `spec` (a DiagramSpec as a dict or JSON string) reaches here through kwargs and is sent as the row's ground truth.
    """
    specs: Iterable[Any] = kwargs.get("spec") or [None] * len(completions)
    rows = []
    for prompt, completion, spec in zip(prompts, completions, specs, strict=True):
        row: dict[str, Any] = {"prompt": _text(prompt, "user"), "completion": _text(completion, "assistant")}
        s = _spec(spec)
        if s is not None:
            row["spec"] = s
        rows.append(row)
    return [float(r["reward"]) for r in _client().score(rows)]


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: dict[str, Any] | None = None) -> float:
    """verl custom reward function (custom_reward_function.path / name=compute_score).

    `ground_truth` is the DiagramSpec (dict or JSON string; empty for none) from the dataset's reward_model column;
    the prompt is taken from extra_info["prompt"] (string or messages) when the dataset puts it there.
    """
    del data_source  # one environment: every data source is scored the same way
    prompt = _text((extra_info or {}).get("prompt", ""), "user")
    row: dict[str, Any] = {"prompt": prompt, "completion": solution_str}
    spec = _spec(ground_truth)
    if spec is not None:
        row["spec"] = spec
    return float(_client().score([row])[0]["reward"])


class EpisodeClient:
    """One multi-turn episode in a server session, with Gymnasium's reset/step shapes.

    >>> with EpisodeClient(env="editing") as ep:
    ...     obs, info = ep.reset(seed=3)
    ...     obs, reward, terminated, truncated, info = ep.step('{"actions": [], "done": true}')
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
        out = self.client.request("POST", "/reset", body)
        self.session_id = out["session_id"]
        return out["observation"], out["info"]

    def step(self, action: str | dict[str, Any]):
        if self.session_id is None:
            raise CanvasgymError("step() before reset(): reset the episode first")
        out = self.client.request("POST", "/step", {"session_id": self.session_id, "action": action})
        return out["observation"], out["reward"], out["terminated"], out["truncated"], out["info"]

    def state(self) -> dict[str, Any]:
        if self.session_id is None:
            raise CanvasgymError("state() before reset(): reset the episode first")
        return self.client.request("GET", f"/state?session_id={self.session_id}")

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
