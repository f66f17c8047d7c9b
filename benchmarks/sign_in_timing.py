"""Sign-in timing: does a refused sign-in take as long for an unknown name as for a known name
with a wrong password? (An unknown name verifies a stand-in Argon2id hash, so it should.)

Runs the app in this process (a SQLite database in a temporary directory), creates one account,
then alternates the two kinds of refused sign-in (and a successful one, for scale), each
``--rounds`` times, in a random order. The throttle is raised out of the way.

    .venv/bin/python benchmarks/sign_in_timing.py [--rounds 40]

Prints the median and the 10th/90th percentiles of each kind in milliseconds, and the ratio of
the two refused medians (unknown / wrong password): near 1.0 means the time tells nothing.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from ttr_nordic.server import create_app
from ttr_nordic.server.accounts import Throttle

PASSWORD = "benchmark password"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=40, help="sign-ins of each kind (default 40)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'games.sqlite'}"
        with TestClient(create_app(url)) as client:
            client.app.state.accounts.throttle = Throttle(per_account=10**9, per_address=10**9)  # type: ignore[attr-defined]
            assert client.post("/api/account/sign-up", json={"name": "Timed", "password": PASSWORD}).status_code == 201
            kinds = {
                "unknown_name": ({"name": "Nobody", "password": "a wrong password"}, 401),
                "wrong_password": ({"name": "Timed", "password": "a wrong password"}, 401),
                "right_password": ({"name": "Timed", "password": PASSWORD}, 200),
            }
            order = [kind for kind in kinds for _ in range(args.rounds)]
            random.Random(1).shuffle(order)
            times: dict[str, list[float]] = {kind: [] for kind in kinds}
            for kind in order:
                body, status = kinds[kind]
                client.cookies.clear()
                start = time.perf_counter()
                response = client.post("/api/account/sign-in", json=body)
                times[kind].append((time.perf_counter() - start) * 1000)
                assert response.status_code == status, response.text
    for kind, values in times.items():
        deciles = statistics.quantiles(values, n=10)
        print(f"{kind}_ms median {statistics.median(values):.1f} p10 {deciles[0]:.1f} p90 {deciles[-1]:.1f}")
    ratio = statistics.median(times["unknown_name"]) / statistics.median(times["wrong_password"])
    print(f"unknown_over_wrong_median_ratio {ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
