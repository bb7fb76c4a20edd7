"""GRPO of the canvasgym student with TRL, canvasgym's server as the reward.

    canvasgym run --name default                                   # writes the SFT student to runs/default/sft/final
    canvasgym serve --reward task &                                # the reward, on http://127.0.0.1:8000
    canvasgym tasks --split train --n 2000 --out tasks.jsonl
    python python/examples/prepare_data.py tasks.jsonl --trainer trl --out data/trl.jsonl
    pip install ./python trl                                       # canvasgym_client, TRL (and its torch, datasets)
    python python/examples/trl/train_grpo.py --data data/trl.jsonl --model runs/default/sft/final

The student's checkpoint is a Hugging Face GPT-2 (config.json, model.safetensors, tokenizer.json with the chat template
in tokenizer_config.json), so GRPOTrainer loads it by path. The dataset's `spec` column reaches the reward function as a
keyword argument and is sent as the ground truth, so the reward checks the requested entities and edges rather than
guessing them from the prompt. Nothing talks to the server until training starts.
"""
from __future__ import annotations

import argparse


def grpo_config(args: argparse.Namespace) -> dict:
    """GRPOConfig's arguments (TRL's names: num_generations, max_completion_length, beta, ...)."""
    return dict(
        output_dir=args.output_dir,
        learning_rate=args.learning_rate,
        per_device_train_batch_size=args.num_generations,
        gradient_accumulation_steps=1,
        num_generations=args.num_generations,
        max_completion_length=args.max_completion_length,
        temperature=0.7,
        beta=0.02,
        max_steps=args.max_steps,
        logging_steps=1,
        # The student is a small float32 model; bf16 is TRL's default only where the hardware has it.
        bf16=args.bf16,
        report_to="none",
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="GRPO of the canvasgym student with TRL")
    p.add_argument("--data", default="data/trl.jsonl", help="prepare_data.py --trainer trl output")
    p.add_argument("--model", default="runs/default/sft/final", help="the SFT student `canvasgym run` writes (runs/NAME/sft/final)")
    p.add_argument("--output-dir", default="runs/default/trl-grpo")
    p.add_argument("--learning-rate", type=float, default=1e-5)
    p.add_argument("--num-generations", type=int, default=8)
    p.add_argument("--max-completion-length", type=int, default=512)
    p.add_argument("--max-steps", type=int, default=60)
    p.add_argument("--bf16", action="store_true")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    # Imported here so that the file can be read (and its helpers tested) where TRL is not installed.
    from datasets import load_dataset
    from trl import GRPOConfig, GRPOTrainer

    from canvasgym_client import reward_func_async

    trainer = GRPOTrainer(
        model=args.model,
        # Async: TRL awaits it on its own event loop, beside any other reward functions.
        reward_funcs=reward_func_async,
        args=GRPOConfig(**grpo_config(args)),
        train_dataset=load_dataset("json", data_files=args.data, split="train"),
    )
    trainer.train()
    trainer.save_model(args.output_dir)


if __name__ == "__main__":
    main()
