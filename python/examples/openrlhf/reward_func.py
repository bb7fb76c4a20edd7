"""OpenRLHF's reward_func file (--reward.remote_url path/to/reward_func.py), over canvasgym's server.

OpenRLHF imports this file and calls reward_func(queries, prompts, labels): `queries` are prompt and response decoded
with special tokens, `labels` the dataset's label column (a DiagramSpec as JSON, from prepare_data.py --trainer
openrlhf). The answer is {"rewards", "scores", "extra_logs"}, what POST /get_reward returns; pointing
--reward.remote_url at http://HOST:PORT/get_reward instead skips this file.
"""
from canvasgym_client import openrlhf_reward_func as reward_func

__all__ = ["reward_func"]
