"""Tasks from `canvasgym tasks` as a trainer's dataset, standard library only.

    canvasgym tasks --split train --n 2000 --out tasks.jsonl
    python python/examples/prepare_data.py tasks.jsonl --trainer verl --out data/train.json
    python python/examples/prepare_data.py tasks.jsonl --trainer openrlhf --out data/prompts.jsonl
    python python/examples/prepare_data.py tasks.jsonl --trainer trl --out data/trl.jsonl

verl: one JSON object a line (verl's RLHFDataset reads `.json` files with `datasets.load_dataset("json")`, and
`.parquet` where pyarrow is installed): `prompt` as messages, `reward_model.ground_truth` the task's DiagramSpec (as
JSON text, so that every row has the same columns), and `extra_info.prompt` the request, which compute_score needs.
OpenRLHF: `prompt` (the request; --data.apply_chat_template renders it) and `label` (the spec as JSON), for
--data.input_key prompt --data.label_key label. TRL: `prompt` as messages and a `spec` column, which GRPOTrainer passes
to reward functions as a keyword argument.

The student's chat template leaves system messages out (it was trained without them), so the prompt is the user turn.
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def read_tasks(path: str) -> list[dict]:
    with open(path, encoding="utf-8-sig") as f:
        return [json.loads(line) for line in f if line.strip()]


def verl_row(task: dict, index: int, split: str) -> dict:
    return {
        "data_source": "canvasgym",
        "prompt": [{"role": "user", "content": task["prompt"]}],
        "ability": "diagram",
        "reward_model": {"style": "rule", "ground_truth": json.dumps(task["spec"], separators=(",", ":"))},
        "extra_info": {"split": split, "index": index, "id": task.get("id", ""), "prompt": task["prompt"]},
    }


def openrlhf_row(task: dict) -> dict:
    return {"prompt": task["prompt"], "label": json.dumps(task["spec"], separators=(",", ":"))}


def trl_row(task: dict) -> dict:
    return {"prompt": [{"role": "user", "content": task["prompt"]}], "spec": json.dumps(task["spec"], separators=(",", ":"))}


def convert(tasks: list[dict], trainer: str, split: str) -> list[dict]:
    if trainer == "verl":
        return [verl_row(t, i, split) for i, t in enumerate(tasks)]
    if trainer == "openrlhf":
        return [openrlhf_row(t) for t in tasks]
    return [trl_row(t) for t in tasks]


def write(rows: list[dict], out: str) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if out.endswith(".parquet"):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ModuleNotFoundError:
            sys.exit("prepare_data.py: writing .parquet needs pyarrow (pip install pyarrow); or write .json, which verl reads too")
        pq.write_table(pa.Table.from_pylist(rows), out)
        return
    with open(out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("tasks", help="JSONL written by `canvasgym tasks`")
    p.add_argument("--trainer", choices=["verl", "openrlhf", "trl"], required=True)
    p.add_argument("--out", required=True, help="output file (.json / .jsonl; .parquet for verl with pyarrow)")
    p.add_argument("--split", default="train", help="recorded in verl's extra_info")
    args = p.parse_args(argv)
    tasks = read_tasks(args.tasks)
    missing = [i for i, t in enumerate(tasks) if not t.get("prompt") or "spec" not in t]
    if missing:
        sys.exit(f"prepare_data.py: {args.tasks}: row {missing[0] + 1} has no prompt or no spec: expected `canvasgym tasks` output")
    rows = convert(tasks, args.trainer, args.split)
    write(rows, args.out)
    print(f"prepare_data.py: wrote {len(rows)} {args.trainer} rows to {args.out}")


if __name__ == "__main__":
    main()
