"""Reference results for the experiments' integration test (server/experiments/experiments.int.test.ts).

Run from the repository root (Python 3.11, SciPy, NumPy, mpmath):

    python3 server/experiments/reference/compute.py

It reads inputs.json beside it and writes expected.json. Nothing here calls ACE Studio's code: the
assignment is GrowthBook's hashing version 2 written out from its definition,

    n = (fnv1a32(str(fnv1a32(seed + unitId))) % 10000) / 10000,   FNV-1a over UTF-16 code units,

with variant i owning [c_i, c_i + coverage * w_i), and every statistic comes from SciPy or, where
SciPy has none (Newcombe, Holm, the delta method, the Beta comparison, the power formulas), from the
published formulas in server/ace/stats/reference/compute.py, imported here so they are written once.

Scenarios:
  agents   1,000 agents with ids agent-0 ... agent-999 assigned 50/50 to A and B; each posts one trace.
           An agent succeeds when fnv1a32("outcome:" + id) % 10000 / 10000 is below its variant's
           success probability; its cost and duration come from fnv1a32("cost:" + id) and
           fnv1a32("duration:" + id) the same way (B's durations are 300 ms longer: a guardrail).
  skewed   a 50/50 experiment whose traces name 560 units of A and 440 of B: a sample-ratio mismatch.
  paired   one task set run under A and under B, with the four cells of the paired table.
  perUnit  units with several decided traces each (NumPy's generator, seed 7): the ratio analysis.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import scipy
from scipy import stats

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]

_spec = importlib.util.spec_from_file_location("stats_reference", ROOT / "server/ace/stats/reference/compute.py")
assert _spec and _spec.loader
S = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(S)


def fnv1a32(text: str) -> int:
    h = 0x811C9DC5
    units = text.encode("utf-16-le")
    for i in range(0, len(units), 2):
        h ^= units[i] | (units[i + 1] << 8)
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def growthbook_v2(seed: str, unit: str) -> float:
    return (fnv1a32(str(fnv1a32(seed + unit))) % 10000) / 10000


def choose(n: float, weights: list[float], coverage: float) -> int | None:
    cumulative = 0.0
    for index, weight in enumerate(weights):
        start = cumulative
        cumulative += weight
        if start <= n < start + coverage * weight:
            return index
    return None


def fraction(label: str, unit: str) -> float:
    return (fnv1a32(f"{label}:{unit}") % 10000) / 10000


def agents(spec: dict) -> tuple[dict, dict]:
    names = spec["variants"]
    traces = {name: [] for name in names}
    for i in range(spec["units"]):
        unit = f"{spec['unitPrefix']}{i}"
        index = choose(growthbook_v2(spec["seed"], unit), spec["weights"], spec["coverage"])
        assert index is not None
        name = names[index]
        success = fraction("outcome", unit) < spec["successProbability"][name]
        cost = round(spec["costUsd"]["base"] + fraction("cost", unit) * spec["costUsd"]["spread"], 6)
        duration = spec["durationMs"][name] + fnv1a32(f"duration:{unit}") % spec["durationMs"]["spread"]
        traces[name].append({"unitId": unit, "success": success, "costUsd": cost, "durationMs": duration})

    variants = []
    for name in names:
        rows = traces[name]
        k = sum(1 for row in rows if row["success"])
        n = len(rows)
        variants.append({"key": name, "units": n, "traces": n, "success": k, "failure": n - k, "successRate": k / n, "ci95": S.wilson(k, n)})
    control, variant = variants
    kc, nc, kv, nv = control["success"], control["traces"], variant["success"], variant["traces"]
    z = S.z_test(kv, nv, kc, nc)
    diff = kv / nv - kc / nc
    guardrails = {}
    for metric in ("costUsd", "durationMs"):
        values = {name: np.asarray([row[metric] for row in traces[name]], dtype=float) for name in names}
        welch = S.welch(values[names[1]], values[names[0]])
        guardrails[metric] = {"difference": welch["difference"], "ci": welch["ci"], "pValue": welch["pValue"]}
    baseline = kc / nc
    smallest = min(nc, nv)
    planned = spec["plannedUnitsPerVariant"]
    comparison = {
        "absoluteDiff": diff,
        "ci95": S.newcombe(kv, nv, kc, nc),
        "pValue": z["pValue"],
        "adjustedPValue": S.holm([z["pValue"]])[0],
        "relativeUplift": diff / baseline,
        "chanceToBeatControl": S.chance_to_beat((kv, nv), (kc, nc)),
        "guardrails": guardrails,
        "mdeAtCurrentSample": S.mde(smallest, baseline, 0.05, 0.8),
    }
    result = {
        "variants": variants,
        "comparison": comparison,
        "srm": S.srm([control["units"], variant["units"]], spec["weights"]),
        "progress": {"unitsPerVariant": smallest, "plannedUnitsPerVariant": planned, "fraction": min(1, smallest / planned)},
    }
    # What the simulation posts, so the test can check its traces against these (one per agent).
    expanded = {name: traces[name] for name in names}
    return result, expanded


def skewed(spec: dict) -> dict:
    observed = [spec["units"]["A"], spec["units"]["B"]]
    return {"observed": observed, "srm": S.srm(observed, spec["weights"])}


def paired(spec: dict) -> dict:
    cells = spec["cells"]
    tasks = sum(cells.values())
    return {"tasks": tasks, **cells, "pValue": S.mcnemar(cells["onlyControl"], cells["onlyVariant"])}


def per_unit(spec: dict) -> dict:
    arms = S.generate_units({"seed": spec["seed"], "control": spec["control"], "variant": spec["variant"]})
    sums_c, control = S.ratio_arm(arms["control"]["numerators"], arms["control"]["denominators"])
    sums_v, variant = S.ratio_arm(arms["variant"]["numerators"], arms["variant"]["denominators"])
    difference = S.ratio_difference({**variant, "units": sums_v["units"]}, {**control, "units": sums_c["units"]})
    return {
        "units": {
            "A": [[int(x), int(y)] for x, y in zip(arms["control"]["numerators"], arms["control"]["denominators"])],
            "B": [[int(x), int(y)] for x, y in zip(arms["variant"]["numerators"], arms["variant"]["denominators"])],
        },
        "rates": {"A": control["rate"], "B": variant["rate"]},
        "comparison": {
            "absoluteDiff": difference["difference"],
            "ci95": difference["ci"],
            "pValue": difference["pValue"],
            "chanceToBeatControl": difference["chanceToBeatControl"],
        },
    }


def main() -> None:
    inputs = json.loads((HERE / "inputs.json").read_text())
    agents_result, agents_traces = agents(inputs["agents"])
    out = {
        "generatedBy": "server/experiments/reference/compute.py",
        "versions": {"python": ".".join(map(str, __import__("sys").version_info[:3])), "scipy": scipy.__version__, "numpy": np.__version__, "mpmath": mpmath.__version__},
        "agents": {**agents_result, "traces": agents_traces},
        "skewed": skewed(inputs["skewed"]),
        "paired": paired(inputs["paired"]),
        "perUnit": per_unit(inputs["perUnit"]),
    }
    # The golden values GrowthBook's own tests use for hashing version 2 (packages/sdk-js/test/cases.json).
    assert growthbook_v2("feature", "123") == 0.5231 and growthbook_v2("holdout", "1") == 0.8043 and growthbook_v2("experiment", "1") == 0.4413
    (HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n")
    print("wrote", HERE / "expected.json", {name: out["agents"]["variants"][i]["units"] for i, name in enumerate(["A", "B"])})


if __name__ == "__main__":
    main()
