// The one error an LLM call throws when it got no answer. Parse failures are not errors: they come
// back in CompletionResult.parsed so the run record keeps the raw text.

export const LLM_ERROR_KINDS = ["rate_limited", "server_error", "timeout", "connection", "auth", "bad_request", "circuit_open"] as const;
export type LlmErrorKind = (typeof LLM_ERROR_KINDS)[number];

/** Kinds that say the provider is unwell: they are retried, and they count against the circuit breaker. */
export const TRANSIENT_LLM_ERROR_KINDS: ReadonlySet<LlmErrorKind> = new Set(["rate_limited", "server_error", "timeout", "connection"]);

export class LlmError extends Error {
  override readonly name = "LlmError";
  readonly kind: LlmErrorKind;
  /** Whether the same call may succeed later (not: whether this layer retried it). */
  readonly retryable: boolean;
  /** HTTP calls made; 0 when the circuit breaker refused the call. */
  readonly attempts: number;
  /** How long the provider (or the breaker) asked to wait, when known. */
  readonly retryAfterMs: number | undefined;
  /** HTTP status of the last answer, when there was one. */
  readonly status: number | undefined;

  constructor(
    kind: LlmErrorKind,
    message: string,
    details: { attempts: number; retryable?: boolean; retryAfterMs?: number; status?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = kind;
    this.retryable = details.retryable ?? (TRANSIENT_LLM_ERROR_KINDS.has(kind) || kind === "circuit_open");
    this.attempts = details.attempts;
    this.retryAfterMs = details.retryAfterMs;
    this.status = details.status;
  }
}
