"""Scores JSONL rows {"prompt", "completion"} with the seed's reference reward.py, one JSON line out per line in.

The reference is imported from $CANVASGYM_SEED_REFERENCE (default <repo>/../shared/seed/reference); it is never
copied into this repository. Standard library only.

Usage:
  python3 python/seed_reference_score.py < rows.jsonl > rewards.jsonl
  --errors  write {"reward": r, "errors": [...]} (the reference env.py's error strings) instead of a bare reward
  --bench   read every row first, then time only the reward calls; prints {"n", "seconds", "cpu_seconds"} on stderr
"""
from __future__ import annotations

import json
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.environ.get("CANVASGYM_SEED_REFERENCE") or os.path.join(REPO, "..", "shared", "seed", "reference")


def load_reference():
    if not os.path.isfile(os.path.join(REFERENCE, "reward.py")):
        sys.exit(f"seed_reference_score: no reward.py in {REFERENCE} (set CANVASGYM_SEED_REFERENCE)")
    sys.path.insert(0, REFERENCE)
    import env  # noqa: E402  (the reference's own module)
    import reward  # noqa: E402

    return reward.reward, env.validate_completion


def main() -> None:
    with_errors = "--errors" in sys.argv[1:]
    bench = "--bench" in sys.argv[1:]
    reward, validate_completion = load_reference()
    sys.stdin.reconfigure(encoding="utf-8", errors="surrogatepass")

    def formatted(row: dict, r: float) -> str:
        if not with_errors:
            return json.dumps(r)
        return json.dumps({"reward": r, "errors": validate_completion(row["completion"])[1]})

    def score(row: dict) -> str:
        return formatted(row, reward(row["prompt"], row["completion"]))

    if bench:
        rows = [json.loads(line) for line in sys.stdin if line.strip()]
        # Only the reward calls are timed: writing each reward as JSON (about 1.7 us) is the bench's I/O, not scoring.
        start, cpu_start = time.perf_counter(), time.process_time()
        rewards = [reward(row["prompt"], row["completion"]) for row in rows]
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
        sys.stdout.write("".join(formatted(row, r) + "\n" for row, r in zip(rows, rewards)))
        sys.stderr.write(json.dumps({"n": len(rows), "seconds": seconds, "cpu_seconds": cpu_seconds}) + "\n")
        return
    for n, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            sys.stdout.write(score(row) + "\n")
        except Exception as exc:  # a bad row must not stop the batch: report it in place
            sys.stdout.write(json.dumps({"error": f"line {n}: {type(exc).__name__}: {exc}"}) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
