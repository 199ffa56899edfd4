// Several variants compared with one control make several tests; adjusting their p-values keeps
// the chance of any false "significant" at α.
import { requireClosedUnit } from "./validate";

/**
 * Holm's step-down adjustment (Holm 1979, Scand J Statist 6:65–70), which controls the
 * family-wise error rate without assumptions on how the tests depend on each other. With the
 * p-values sorted p₍₁₎ ≤ … ≤ p₍ₘ₎: adjusted₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎), returned
 * in the input order (the same as R's p.adjust(method = "holm")). Reject where adjusted < α.
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  pValues.forEach((p, i) => requireClosedUnit("holmAdjust", `pValues[${i}]`, p));
  const m = pValues.length;
  const order = pValues.map((p, index) => ({ p, index })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, index }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[index] = running;
  });
  return adjusted;
}
