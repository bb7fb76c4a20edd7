#!/bin/bash
# GRPO of the canvasgym student with verl, canvasgym's server as the reward (needs GPUs, verl and vLLM).
#   canvasgym run --name default && canvasgym serve --reward task &
#   canvasgym tasks --split train --n 2000 --out tasks.jsonl && canvasgym tasks --split heldout --n 200 --out heldout.jsonl
#   python python/examples/prepare_data.py tasks.jsonl --trainer verl --out data/verl/train.json
#   python python/examples/prepare_data.py heldout.jsonl --trainer verl --split heldout --out data/verl/heldout.json
#   pip install ./python && bash python/examples/verl/run_grpo.sh
# The reward part is the last four lines: the batch reward manager with compute_score_batch, and its components logged
# (reward_kwargs.components=true: each score is {"score", one key per component}, which verl adds to its metrics).
set -euo pipefail
MODEL=${MODEL:-runs/default/sft/final}
export CANVASGYM_URL=${CANVASGYM_URL:-http://127.0.0.1:8000}

python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files=data/verl/train.json \
  data.val_files=data/verl/heldout.json \
  data.prompt_key=prompt \
  data.train_batch_size=64 \
  data.max_prompt_length=448 \
  data.max_response_length=512 \
  actor_rollout_ref.model.path="$MODEL" \
  actor_rollout_ref.actor.optim.lr=1e-5 \
  actor_rollout_ref.actor.ppo_mini_batch_size=32 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=8 \
  actor_rollout_ref.actor.use_kl_loss=True \
  actor_rollout_ref.actor.kl_loss_coef=0.02 \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.tensor_model_parallel_size=1 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.4 \
  actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=16 \
  actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu=16 \
  actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.rollout.temperature=0.7 \
  trainer.n_gpus_per_node=${GPUS:-1} \
  trainer.nnodes=1 \
  trainer.total_epochs=1 \
  trainer.logger='["console"]' \
  reward_model.reward_manager=batch \
  custom_reward_function.path=python/examples/verl/canvasgym_reward.py \
  custom_reward_function.name=compute_score_batch \
  +custom_reward_function.reward_kwargs.components=true
