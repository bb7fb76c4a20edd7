#!/bin/bash
# REINFORCE++ (baseline) of the canvasgym student with OpenRLHF, canvasgym's server as the remote reward (needs GPUs,
# OpenRLHF, Ray and vLLM).
#   canvasgym run --name default && canvasgym serve --reward task &
#   canvasgym tasks --split train --n 2000 --out tasks.jsonl
#   python python/examples/prepare_data.py tasks.jsonl --trainer openrlhf --out data/openrlhf/prompts.jsonl
#   ray start --head && bash python/examples/openrlhf/run_reinforce.sh
# --reward.remote_url takes the /get_reward URL (or python/examples/openrlhf/reward_func.py). OpenRLHF releases before
# the dotted flags call it --remote_rm_url (and --pretrain, --prompt_data, --input_key, --label_key, --n_samples_per_prompt).
set -euo pipefail
MODEL=${MODEL:-runs/default/sft/final}

ray job submit --address="http://127.0.0.1:8265" -- python3 -m openrlhf.cli.train_ppo_ray \
  --actor.model_name_or_path "$MODEL" \
  --ckpt.output_dir runs/default/openrlhf \
  --reward.remote_url "${CANVASGYM_URL:-http://127.0.0.1:8000}/get_reward" \
  --data.prompt_dataset data/openrlhf/prompts.jsonl \
  --data.input_key prompt \
  --data.label_key label \
  --data.apply_chat_template \
  --data.max_len 960 \
  --rollout.max_new_tokens 512 \
  --rollout.batch_size 64 \
  --rollout.n_samples_per_prompt 8 \
  --rollout.temperature 0.7 \
  --train.batch_size 256 \
  --algo.advantage.estimator reinforce_baseline \
  --actor.adam.lr 1e-5 \
  --algo.kl.init_coef 0.02
