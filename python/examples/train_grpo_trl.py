"""The seed's TRL GRPO setup, with canvasgym as the reward (not run here: it needs a GPU and TRL).

    canvasgym serve --reward strong &          # the environment, on http://127.0.0.1:8000
    canvasgym tasks --split train --n 2000 --out tasks.jsonl
    CANVASGYM_URL=http://127.0.0.1:8000 python python/examples/train_grpo_trl.py tasks.jsonl

The dataset keeps each task's `spec` column: TRL passes extra columns to reward functions as keyword arguments, and
canvasgym_client.reward_func sends it as the ground truth, so the reward checks the requested entities and edges
rather than guessing them from the prompt.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets import Dataset  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from canvasgym_client import Client, reward_func  # noqa: E402

# The system prompt canvasgym's teacher data and student use, as the server publishes it.
SYSTEM_PROMPT = Client().request("GET", "/schema")["system_prompts"]["diagram"]


def load_tasks(path: str) -> Dataset:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    return Dataset.from_list(
        [
            {
                "prompt": [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": r["prompt"]}],
                "spec": json.dumps(r["spec"]),
            }
            for r in rows
        ]
    )


def main() -> None:
    dataset = load_tasks(sys.argv[1] if len(sys.argv) > 1 else "tasks.jsonl")
    args = GRPOConfig(
        output_dir="outputs/diagram-grpo",
        learning_rate=1e-6,
        per_device_train_batch_size=2,
        gradient_accumulation_steps=4,
        num_generations=4,
        max_prompt_length=1024,
        max_completion_length=1024,
        logging_steps=1,
    )
    trainer = GRPOTrainer(
        model="outputs/diagram-sft/final",
        reward_funcs=reward_func,
        args=args,
        train_dataset=dataset,
    )
    trainer.train()


if __name__ == "__main__":
    main()
