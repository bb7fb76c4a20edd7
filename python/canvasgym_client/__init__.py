"""canvasgym as a reward and an environment for Python trainers, over the canvasgym HTTP server.

Standard library only. The server's address comes from CANVASGYM_URL (default http://127.0.0.1:8000), its bearer
token, for a server started with --api-key, from CANVASGYM_API_KEY, and the reward preset, when not the server's
default, from CANVASGYM_REWARD.

- reward_func / reward_func_async(prompts, completions, **kwargs): TRL GRPOTrainer's reward_funcs.
- compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs) and compute_score_batch(data_sources,
  solution_strs, ground_truths, extra_infos, **kwargs): verl's custom reward function, per sample and batched.
- openrlhf_reward_func(queries, prompts, labels): OpenRLHF's reward_func file (or point it at POST /get_reward).
- EpisodeClient: multi-turn episodes (reset / step / state / close) in a server session.
- Client: the HTTP client under them (retries, batches split to the server's limits).
"""
from .client import CanvasgymError, Client
from .episodes import EpisodeClient
from .rewards import compute_score, compute_score_batch, openrlhf_reward_func, reward_func, reward_func_async

__all__ = [
    "CanvasgymError",
    "Client",
    "EpisodeClient",
    "compute_score",
    "compute_score_batch",
    "openrlhf_reward_func",
    "reward_func",
    "reward_func_async",
]
