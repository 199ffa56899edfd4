"""Reference values for server/ace/stats, computed with SciPy.

Run from the repository root (Python 3.11, SciPy, NumPy, mpmath):

    python3 server/ace/stats/reference/compute.py

It reads inputs.json beside it and writes expected.json, which the vitest tests read. SciPy is used
here to produce reference values only; it is not a dependency of the app.

Where SciPy has the statistic, SciPy computes it:
  Wilson           scipy.stats.binomtest(k, n).proportion_ci(confidence_level, method="wilson")
  pooled z-test    scipy.stats.chi2_contingency(table, correction=False) (Pearson X² = z²) and
                   scipy.stats.norm for the signed z
  Welch            scipy.stats.ttest_ind(variant, control, equal_var=False) on the raw samples,
                   .df and .confidence_interval(level)
  SRM              scipy.stats.chisquare(observed, expected)
  McNemar (exact)  scipy.stats.binomtest(onlyVariant, onlyControl + onlyVariant, 0.5).pvalue
  quantiles        numpy.quantile(values, p, method="linear") (Hyndman & Fan 1996, type 7)
SciPy has no Newcombe interval, Holm adjustment, delta-method ratio, Beta comparison or
sample-size function; those are written out below from their published definitions, each with
its citation, and checked against a published worked example where one exists.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import scipy
from scipy import integrate, optimize, stats

HERE = Path(__file__).resolve().parent


def z_for(confidence_level: float) -> float:
    return float(stats.norm.ppf(1 - (1 - confidence_level) / 2))


# ---- Wilson (SciPy) -----------------------------------------------------------------------------


def wilson(k: int, n: int, confidence_level: float = 0.95) -> list[float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence_level, method="wilson")
    return [float(ci.low), float(ci.high)]


# ---- Newcombe (1998), method 10: hybrid score interval without continuity correction -----------
# Newcombe RG. Interval estimation for the difference between independent proportions: comparison
# of eleven methods. Statistics in Medicine 1998; 17:873-890. With (l1, u1), (l2, u2) the Wilson
# intervals of p1 = x1/n1 and p2 = x2/n2 and D = p1 - p2:
#   L = D - sqrt((p1 - l1)^2 + (u2 - p2)^2),   U = D + sqrt((u1 - p1)^2 + (p2 - l2)^2).


def newcombe(x1: int, n1: int, x2: int, n2: int, confidence_level: float = 0.95) -> list[float]:
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, confidence_level)
    l2, u2 = wilson(x2, n2, confidence_level)
    d = p1 - p2
    return [d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)]


# ---- pooled two-proportion z-test (SciPy's Pearson chi-square on the 2x2 table) ----------------


def z_test(x1: int, n1: int, x2: int, n2: int) -> dict:
    table = [[x1, n1 - x1], [x2, n2 - x2]]
    chi2, p, _, _ = stats.chi2_contingency(table, correction=False)
    pooled = (x1 + x2) / (n1 + n2)
    z = (x1 / n1 - x2 / n2) / math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p_from_z = float(2 * stats.norm.sf(abs(z)))
    assert math.isclose(z * z, chi2, rel_tol=1e-9), (z, chi2)
    assert math.isclose(p, p_from_z, rel_tol=1e-9), (p, p_from_z)
    return {"z": z, "pValue": float(p)}


# ---- Welch (SciPy on the raw samples) ------------------------------------------------------------


def sums(values: np.ndarray) -> dict:
    return {"n": int(values.size), "sum": math.fsum(values), "sumSquares": math.fsum(values * values)}


def generate_samples(spec: dict) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(spec["seed"])
    out = []
    for arm in ("variant", "control"):
        a = spec[arm]
        if spec["kind"] == "lognormal":
            out.append(rng.lognormal(a["mu"], a["sigma"], a["n"]))
        elif spec["kind"] == "gamma":
            out.append(rng.gamma(a["shape"], a["scale"], a["n"]))
        else:
            out.append(rng.normal(a["mean"], a["sd"], a["n"]))
    return out[0], out[1]


def welch(variant: np.ndarray, control: np.ndarray, confidence_level: float = 0.95) -> dict:
    result = stats.ttest_ind(variant, control, equal_var=False)
    ci = result.confidence_interval(confidence_level)
    return {
        "difference": float(variant.mean() - control.mean()),
        "t": float(result.statistic),
        "degreesOfFreedom": float(result.df),
        "pValue": float(result.pvalue),
        "ci": [float(ci.low), float(ci.high)],
    }


# ---- per-unit ratio metric, delta method ---------------------------------------------------------
# The rate R = sum(x) / sum(y) = mean(x) / mean(y) over units. First-order Taylor expansion (delta
# method; e.g. Deng, Knoblich & Lu, "Applying the Delta Method in Metric Analytics", KDD 2018) gives
# the per-unit variance
#   V = var(x)/mean(y)^2 - 2 mean(x) cov(x, y)/mean(y)^3 + mean(x)^2 var(y)/mean(y)^4
# (sample variances and covariance with n - 1), and Var(R) = V / n. The difference of two
# variants is tested with Welch's t and Welch-Satterthwaite df on (V, n) per arm, as GrowthBook's
# gbstats does for ratio metrics. Computed here from the raw per-unit values with NumPy, not from
# the sums the TypeScript receives.


def generate_units(spec: dict) -> dict:
    rng = np.random.default_rng(spec["seed"])
    arms = {}
    for arm in ("variant", "control"):
        a = spec[arm]
        traces = 1 + rng.poisson(a["meanExtraTraces"], a["units"])
        p = rng.beta(a["successA"], a["successB"], a["units"])
        arms[arm] = {"numerators": rng.binomial(traces, p).tolist(), "denominators": traces.tolist()}
    return arms


def ratio_arm(numerators: list[float], denominators: list[float]) -> tuple[dict, dict]:
    x = np.asarray(numerators, dtype=float)
    y = np.asarray(denominators, dtype=float)
    n = x.size
    mx, my = x.mean(), y.mean()
    vx, vy = np.var(x, ddof=1), np.var(y, ddof=1)
    cxy = np.cov(x, y, ddof=1)[0, 1]
    per_unit = vx / my**2 - 2 * mx * cxy / my**3 + mx**2 * vy / my**4
    the_sums = {
        "units": int(n),
        "numeratorSum": math.fsum(x),
        "numeratorSumSquares": math.fsum(x * x),
        "denominatorSum": math.fsum(y),
        "denominatorSumSquares": math.fsum(y * y),
        "crossProductSum": math.fsum(x * y),
    }
    rate = float(x.sum() / y.sum())
    variance = float(per_unit / n)
    half = float(stats.t.ppf(0.975, n - 1) * math.sqrt(variance))
    return the_sums, {"rate": rate, "variance": variance, "ci": [rate - half, rate + half], "perUnitVariance": float(per_unit)}


def ratio_difference(variant: dict, control: dict, confidence_level: float = 0.95) -> dict:
    nv, nc = variant["units"], control["units"]
    vv, vc = variant["perUnitVariance"], control["perUnitVariance"]
    se2 = vv / nv + vc / nc
    df = se2**2 / ((vv / nv) ** 2 / (nv - 1) + (vc / nc) ** 2 / (nc - 1))
    diff = variant["rate"] - control["rate"]
    t = diff / math.sqrt(se2)
    half = float(stats.t.ppf(1 - (1 - confidence_level) / 2, df) * math.sqrt(se2))
    return {
        "difference": diff,
        "standardError": math.sqrt(se2),
        "t": t,
        "degreesOfFreedom": df,
        "pValue": float(2 * stats.t.sf(abs(t), df)),
        "ci": [diff - half, diff + half],
        "chanceToBeatControl": float(stats.norm.cdf(diff / math.sqrt(se2))),
    }


# ---- SRM (SciPy) ---------------------------------------------------------------------------------


def srm(observed: list[int], weights: list[float]) -> dict:
    total = sum(observed)
    expected = [total * w / sum(weights) for w in weights]
    chi2, p = stats.chisquare(observed, expected)
    return {"chiSquare": float(chi2), "degreesOfFreedom": len(observed) - 1, "pValue": float(p), "flagged": bool(p < 0.001)}


# ---- exact McNemar (SciPy) -----------------------------------------------------------------------


def mcnemar(only_control: int, only_variant: int) -> float:
    return float(stats.binomtest(only_variant, only_control + only_variant, 0.5).pvalue)


# ---- chance to beat control ----------------------------------------------------------------------
# P(p_B > p_A) for p_A ~ Beta(aA, bA), p_B ~ Beta(aB, bB) with integer aB (Evan Miller, "Formulas for
# Bayesian A/B Testing", 2015; the closed form of J. D. Cook, "Exact calculation of beta
# inequalities", 2005):
#   sum_{i=0}^{aB-1} B(aA + i, bA + bB) / ((bB + i) B(1 + i, bB) B(aA, bA))
# evaluated with mpmath at 60 significant digits, and cross-checked against SciPy's numerical
# integral of f_B(x) F_A(x) where that integral is well conditioned.


def chance_to_beat(variant: tuple[int, int], control: tuple[int, int]) -> float:
    a_b, b_b = 1 + variant[0], 1 + variant[1] - variant[0]
    a_a, b_a = 1 + control[0], 1 + control[1] - control[0]
    mpmath.mp.dps = 60
    total = mpmath.mpf(0)
    denominator_a = mpmath.beta(a_a, b_a)
    for i in range(a_b):
        total += mpmath.beta(a_a + i, b_a + b_b) / ((b_b + i) * mpmath.beta(1 + i, b_b) * denominator_a)
    exact = float(total)
    if variant[1] + control[1] <= 2000:
        integral, _ = integrate.quad(
            lambda x: stats.beta.pdf(x, a_b, b_b) * stats.beta.cdf(x, a_a, b_a), 0, 1, epsabs=1e-13, epsrel=1e-11, limit=500
        )
        assert abs(integral - exact) < 1e-8, (variant, control, integral, exact)
    return exact


# ---- Holm (1979) ---------------------------------------------------------------------------------
# Holm S. A simple sequentially rejective multiple test procedure. Scand J Statist 1979; 6:65-70.
# Adjusted p-values: with p(1) <= ... <= p(m), adj(i) = max_{j <= i} min(1, (m - j + 1) p(j)),
# returned in the input order.


def holm(p_values: list[float]) -> list[float]:
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


# ---- sample size for two proportions ------------------------------------------------------------
# The normal-approximation formula for the pooled two-proportion z-test, without continuity
# correction (Fleiss, Levin & Paik, Statistical Methods for Rates and Proportions, 3rd ed., 2003,
# section 4.2; the same equation R's power.prop.test solves with strict = FALSE):
#   n = (z_{1-a/2} sqrt(2 pbar qbar) + z_{1-b} sqrt(p1 q1 + p2 q2))^2 / (p2 - p1)^2, pbar = (p1+p2)/2.
# The inverse (MDE at a given n) is solved here from the power equation with brentq:
#   power = Phi((sqrt(n) d - z_{1-a/2} sqrt(2 pbar qbar)) / sqrt(p1 q1 + p2 q2)).


def sample_size(baseline: float, mde: float, alpha: float, power: float) -> float:
    p1, p2 = baseline, baseline + mde
    pbar = (p1 + p2) / 2
    za, zb = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    return float((za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) ** 2 / mde**2)


def power_at(n: float, baseline: float, d: float, alpha: float) -> float:
    p1, p2 = baseline, baseline + d
    pbar = (p1 + p2) / 2
    za = stats.norm.ppf(1 - alpha / 2)
    return float(stats.norm.cdf((math.sqrt(n) * d - za * math.sqrt(2 * pbar * (1 - pbar))) / math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))))


def mde(n: int, baseline: float, alpha: float, power: float) -> float | None:
    top = 1 - baseline
    if power_at(n, baseline, top, alpha) < power:
        return None
    return float(optimize.brentq(lambda d: power_at(n, baseline, d, alpha) - power, 1e-12, top, xtol=1e-15, rtol=1e-15))


# ---- main ----------------------------------------------------------------------------------------


def main() -> None:
    inputs = json.loads((HERE / "inputs.json").read_text())
    out: dict = {
        "generatedBy": "server/ace/stats/reference/compute.py",
        "versions": {"python": ".".join(map(str, __import__("sys").version_info[:3])), "scipy": scipy.__version__, "numpy": np.__version__, "mpmath": mpmath.__version__},
    }

    out["wilson"] = []
    for case in inputs["wilson"]:
        level = case.get("confidenceLevel", 0.95)
        out["wilson"].append({**case, "z": z_for(level), "expected": wilson(case["successes"], case["trials"], level)})

    out["newcombe"] = []
    for case in inputs["newcombe"]:
        level = case.get("confidenceLevel", 0.95)
        (x1, n1), (x2, n2) = case["variant"], case["control"]
        expected = newcombe(x1, n1, x2, n2, level)
        if "published" in case:
            assert all(abs(a - b) <= 5e-5 for a, b in zip(expected, case["published"])), (case, expected)
        out["newcombe"].append({**case, "z": z_for(level), "expected": expected})

    out["zTest"] = []
    for case in inputs["zTest"]:
        (x1, n1), (x2, n2) = case["variant"], case["control"]
        out["zTest"].append({**case, "expected": z_test(x1, n1, x2, n2)})

    out["welch"] = []
    for case in inputs["welch"]:
        if "generate" in case:
            variant, control = generate_samples(case["generate"])
        else:
            variant, control = np.asarray(case["variant"], dtype=float), np.asarray(case["control"], dtype=float)
        out["welch"].append(
            {"label": case["label"], "variant": sums(variant), "control": sums(control), "expected": welch(variant, control), "expected90": welch(variant, control, 0.9)}
        )

    out["ratio"] = []
    for case in inputs["ratio"]:
        arms = generate_units(case["generate"]) if "generate" in case else {"variant": case["variant"], "control": case["control"]}
        variant_sums, variant = ratio_arm(arms["variant"]["numerators"], arms["variant"]["denominators"])
        control_sums, control = ratio_arm(arms["control"]["numerators"], arms["control"]["denominators"])
        difference = ratio_difference({**variant_sums, **variant}, {**control_sums, **control})
        out["ratio"].append(
            {
                "label": case["label"],
                "variant": variant_sums,
                "control": control_sums,
                "expected": {
                    "variant": {k: v for k, v in variant.items() if k != "perUnitVariance"},
                    "control": {k: v for k, v in control.items() if k != "perUnitVariance"},
                    "difference": difference,
                },
            }
        )

    out["srm"] = [{**case, "expected": srm(case["observed"], case["weights"])} for case in inputs["srm"]]
    out["mcnemar"] = [{**case, "expected": mcnemar(case["onlyControl"], case["onlyVariant"])} for case in inputs["mcnemar"]]
    out["chanceToBeatControl"] = [
        {**case, "expected": chance_to_beat(tuple(case["variant"]), tuple(case["control"]))} for case in inputs["chanceToBeatControl"]
    ]

    out["holm"] = []
    for case in inputs["holm"]:
        expected = holm(case["pValues"])
        if "published" in case:
            assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(expected, case["published"])), (case, expected)
        out["holm"].append({**case, "expected": expected})

    out["sampleSize"] = []
    for case in inputs["sampleSize"]:
        exact = sample_size(case["baseline"], case["mde"], case["alpha"], case["power"])
        # The formula and the power equation must agree: at n = exact the power is the target.
        assert math.isclose(power_at(exact, case["baseline"], case["mde"], case["alpha"]), case["power"], rel_tol=1e-9)
        if "published" in case:
            assert round(exact, 1) == case["published"], (case, exact)
        out["sampleSize"].append({**case, "expected": {"exact": exact, "unitsPerVariant": math.ceil(exact)}})

    out["mde"] = []
    for case in inputs["mde"]:
        expected = mde(case["unitsPerVariant"], case["baseline"], case["alpha"], case["power"])
        if "published" in case:
            assert expected is not None and round(expected, 4) == case["published"], (case, expected)
        out["mde"].append({**case, "expected": expected})

    out["power"] = []
    for case in inputs["power"]:
        expected = power_at(case["unitsPerVariant"], case["baseline"], case["mde"], case["alpha"])
        if "published" in case:
            assert round(expected, 3) == case["published"], (case, expected)
        out["power"].append({**case, "expected": expected})

    out["quantiles"] = []
    for case in inputs["quantiles"]:
        if "generate" in case:
            g = case["generate"]
            values = np.random.default_rng(g["seed"]).gamma(g["shape"], g["scale"], g["n"]).tolist()
        else:
            values = case["values"]
        expected = [float(np.quantile(np.asarray(values, dtype=float), p, method="linear")) for p in case["ps"]]
        out["quantiles"].append({"values": values, "ps": case["ps"], "expected": expected})

    (HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n")
    print("wrote", HERE / "expected.json", {k: len(v) for k, v in out.items() if isinstance(v, list)})


if __name__ == "__main__":
    main()
