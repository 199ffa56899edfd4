// Argument checks shared by the statistics. A bad argument is a programming error in the caller
// (the services pass counts from SQL), so it throws at once with the function, the argument and
// the value, instead of returning a NaN that would reach a results page.

export class StatisticsInputError extends RangeError {
  override name = "StatisticsInputError";
}

function fail(fn: string, message: string): never {
  throw new StatisticsInputError(`${fn}: ${message}`);
}

/** A whole number ≥ 0 (a count of units, traces or successes). */
export function requireCount(fn: string, name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) fail(fn, `${name} must be a whole number ≥ 0, got ${value}`);
}

/** successes and trials of one group: whole numbers with successes ≤ trials. */
export function requireProportionCounts(fn: string, name: string, counts: { successes: number; trials: number }): void {
  requireCount(fn, `${name}.successes`, counts.successes);
  requireCount(fn, `${name}.trials`, counts.trials);
  if (counts.successes > counts.trials) {
    fail(fn, `${name}.successes (${counts.successes}) cannot exceed ${name}.trials (${counts.trials})`);
  }
}

export function requireFinite(fn: string, name: string, value: number): void {
  if (!Number.isFinite(value)) fail(fn, `${name} must be a finite number, got ${value}`);
}

/** A number strictly between 0 and 1 (a confidence level, α, power, a baseline rate). */
export function requireOpenUnit(fn: string, name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0 || value >= 1) fail(fn, `${name} must be between 0 and 1 (exclusive), got ${value}`);
}

/** A number in [0, 1] (a p-value, a quantile level). */
export function requireClosedUnit(fn: string, name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0 || value > 1) fail(fn, `${name} must be between 0 and 1, got ${value}`);
}

export function requirePositive(fn: string, name: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) fail(fn, `${name} must be a finite number > 0, got ${value}`);
}

export function requireCondition(fn: string, ok: boolean, message: string): void {
  if (!ok) fail(fn, message);
}
