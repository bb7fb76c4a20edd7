"""verl's custom reward function file (custom_reward_function.path), over canvasgym's server.

verl loads this file by path; the functions come from the installed canvasgym_client (`pip install ./python`). With
reward_model.reward_manager=naive (verl's default) name=compute_score is called once per sample; with
reward_model.reward_manager=batch name=compute_score_batch gets the whole batch, scored in as few requests as the
server allows. Both read the task's spec from reward_model.ground_truth and the request from extra_info.prompt
(python/examples/prepare_data.py writes both). verl versions that take `pkg://` module paths can name the package itself:
custom_reward_function.path=pkg://canvasgym_client.
"""
from canvasgym_client import compute_score, compute_score_batch

__all__ = ["compute_score", "compute_score_batch"]
