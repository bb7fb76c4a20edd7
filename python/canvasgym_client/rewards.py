"""canvasgym's reward in the shapes trainers call: TRL's reward function (sync and async), verl's compute_score (one
sample and batched) and OpenRLHF's reward_func. Each sends its rows to the server in as few requests as its limits
allow; the server strips a trailing end token (`<|im_end|>`, `</s>`, ...) from every completion."""
from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Iterable

from .client import DEFAULT_URL, Client

_clients: dict[tuple[str, str | None, str | None], Client] = {}


def _client(reward: str | None = None) -> Client:
    """One client per server, key and preset, from CANVASGYM_URL, CANVASGYM_API_KEY and CANVASGYM_REWARD."""
    url = os.environ.get("CANVASGYM_URL") or DEFAULT_URL
    api_key = os.environ.get("CANVASGYM_API_KEY") or None
    reward = reward or os.environ.get("CANVASGYM_REWARD") or None
    key = (url, api_key, reward)
    if key not in _clients:
        _clients[key] = Client(url, api_key=api_key, reward=reward)
    return _clients[key]


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


def _row(prompt: str, completion: str, spec: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"prompt": prompt, "completion": completion}
    s = _spec(spec)
    if s is not None:
        row["spec"] = s
    return row


def reward_func(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
    """TRL GRPOTrainer reward function: one float per completion.

    Takes standard (string) and conversational (list of messages) prompts and completions. A dataset column named
    `spec` (a DiagramSpec as a dict or JSON string) reaches here through kwargs and is sent as the row's ground truth.
    Where TRL passes `log_metric`, the batch's mean of each reward component is logged as `canvasgym/NAME`.
    """
    specs: Iterable[Any] = kwargs.get("spec") or [None] * len(completions)
    rows = [_row(_text(p, "user"), _text(c, "assistant"), s) for p, c, s in zip(prompts, completions, specs, strict=True)]
    results = _client().score(rows)
    log_metric = kwargs.get("log_metric")
    if callable(log_metric) and results:
        for name in results[0]["components"]:
            log_metric(f"canvasgym/{name}", sum(r["components"][name] for r in results) / len(results))
    return [float(r["reward"]) for r in results]


async def reward_func_async(prompts: list[Any], completions: list[Any], **kwargs: Any) -> list[float]:
    """reward_func as a coroutine: TRL runs async reward functions together on its event loop, so the HTTP call
    overlaps the other reward functions' work."""
    return await asyncio.to_thread(reward_func, prompts, completions, **kwargs)


def _prompt_of(extra_info: Any, where: str) -> str:
    prompt = _text(extra_info.get("prompt", ""), "user") if isinstance(extra_info, dict) else ""
    if not prompt:
        raise ValueError(
            f"{where}: extra_info has no prompt: put the request in extra_info['prompt'] (a string or the messages), as "
            "python/examples/verl/prepare_data.py does; canvasgym scores a diagram against what was asked"
        )
    return prompt


def _result(result: dict[str, Any], components: bool) -> float | dict[str, float]:
    if not components:
        return float(result["reward"])
    return {"score": float(result["reward"]), **{k: float(v) for k, v in result["components"].items()}}


def compute_score(
    data_source: str,
    solution_str: str,
    ground_truth: Any,
    extra_info: dict[str, Any] | None = None,
    *,
    components: bool = False,
    reward: str | None = None,
    **kwargs: Any,
) -> float | dict[str, float]:
    """verl custom reward function for one sample (custom_reward_function.name=compute_score).

    `ground_truth` is the DiagramSpec (dict or JSON string; empty for none) from the dataset's reward_model column; the
    request is extra_info["prompt"] (string or messages), required. Other keyword arguments verl passes are accepted and
    ignored. `components=True` (custom_reward_function.reward_kwargs) returns {"score", one key per component}, which
    verl logs; `reward` picks the preset (else CANVASGYM_REWARD, else the server's).
    """
    del data_source, kwargs  # one environment: every data source is scored the same way
    row = _row(_prompt_of(extra_info, "compute_score"), solution_str, ground_truth)
    return _result(_client(reward).score([row])[0], components)


def compute_score_batch(
    data_sources: list[str],
    solution_strs: list[str],
    ground_truths: list[Any],
    extra_infos: list[dict[str, Any]],
    *,
    components: bool = False,
    reward: str | None = None,
    **kwargs: Any,
) -> list[float | dict[str, float]]:
    """verl's batch reward manager (reward_model.reward_manager=batch, custom_reward_function.name=compute_score_batch):
    the whole batch in as few requests as the server's limits allow, one result per sample, as compute_score."""
    del data_sources, kwargs
    rows = [
        _row(_prompt_of(info, f"compute_score_batch: sample {i}"), solution, truth)
        for i, (solution, truth, info) in enumerate(zip(solution_strs, ground_truths, extra_infos, strict=True))
    ]
    return [_result(r, components) for r in _client(reward).score(rows)]


def openrlhf_reward_func(queries: list[str], prompts: list[str], labels: list[Any], **kwargs: Any) -> dict[str, Any]:
    """OpenRLHF's `reward_func(queries, prompts, labels)` (a .py file given as the remote reward): POST /get_reward,
    {rewards, scores, extra_logs}. Labels are DiagramSpecs as JSON (or dicts), "" for none."""
    del kwargs
    labels = ["" if l is None else l if isinstance(l, str) else json.dumps(l) for l in labels]
    return _client().get_reward(list(queries), list(prompts), labels)
