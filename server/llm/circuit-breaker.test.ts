import { describe, expect, it } from "vitest";
import { CircuitBreaker, type BreakerState, type BreakerStore } from "./circuit-breaker";

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

/** One stored state that several breakers (processes) share, updated atomically like a locked row. */
function sharedStore(): BreakerStore & { stored(): BreakerState | null } {
  let state: unknown = null;
  return {
    stored: () => state as BreakerState | null,
    load: async () => state,
    save: async (next) => void (state = next),
    update: async (change) => {
      const next = change(state);
      if (next !== null) state = next;
      return state;
    },
  };
}

function memoryStore(initial: BreakerState | null = null): BreakerStore & { saved: BreakerState[] } {
  let state = initial;
  const saved: BreakerState[] = [];
  return {
    saved,
    load: async () => state,
    save: async (next) => {
      state = next;
      saved.push(next);
    },
  };
}

async function fail(breaker: CircuitBreaker, times: number, error = "500 boom") {
  for (let i = 0; i < times; i++) {
    const permit = await breaker.acquire();
    expect(permit.allowed).toBe(true);
    await breaker.recordFailure(error);
  }
}

describe("CircuitBreaker", () => {
  it("stays closed below the threshold and resets the count on success", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3 });
    await fail(breaker, 2);
    expect(await breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 2, lastError: "500 boom" });
    await breaker.acquire();
    await breaker.recordSuccess();
    await fail(breaker, 2);
    expect((await breaker.snapshot()).state).toBe("closed");
  });

  it("opens after N consecutive failures and refuses calls until the cooldown has passed", async () => {
    const time = clock();
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 60_000, now: time.now });
    await fail(breaker, 3, "503 overloaded");
    expect(await breaker.snapshot()).toEqual({
      state: "open",
      consecutiveFailures: 3,
      openedAt: 1_000_000,
      reopensAt: 1_060_000,
      cooldownMs: 60_000,
      lastError: "503 overloaded",
      lastFailureAt: 1_000_000,
    });
    time.advance(20_000);
    expect(await breaker.acquire()).toMatchObject({ allowed: false, retryAfterMs: 40_000 });
  });

  it("lets exactly one probe through after the cooldown; its success closes the circuit", async () => {
    const time = clock();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, now: time.now });
    await fail(breaker, 1);
    time.advance(1_000);
    expect((await breaker.snapshot()).state).toBe("half-open");
    expect(await breaker.acquire()).toEqual({ allowed: true, probe: true });
    expect(await breaker.acquire()).toMatchObject({ allowed: false });
    await breaker.recordSuccess();
    expect(await breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 0, openedAt: null, reopensAt: null });
    expect(await breaker.acquire()).toEqual({ allowed: true, probe: false });
  });

  it("re-opens on a failed probe with a doubled cooldown, capped", async () => {
    const time = clock();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, maxCooldownMs: 3_000, now: time.now });
    await fail(breaker, 1);
    const cooldowns: number[] = [];
    for (let i = 0; i < 3; i++) {
      time.advance((await breaker.snapshot()).cooldownMs);
      await fail(breaker, 1);
      const state = await breaker.snapshot();
      expect(state.state).toBe("open");
      cooldowns.push(state.cooldownMs);
      expect(state.reopensAt).toBe(time.now() + state.cooldownMs);
    }
    expect(cooldowns).toEqual([2_000, 3_000, 3_000]);
    // Closing starts the next opening from the base cooldown again.
    time.advance(3_000);
    await breaker.acquire();
    await breaker.recordSuccess();
    await fail(breaker, 1);
    expect((await breaker.snapshot()).cooldownMs).toBe(1_000);
  });

  it("frees the probe slot when a probe is released without a verdict", async () => {
    const time = clock();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 10, now: time.now });
    await fail(breaker, 1);
    time.advance(10);
    const probe = await breaker.acquire();
    breaker.release(probe);
    expect(await breaker.acquire()).toEqual({ allowed: true, probe: true });
  });

  it("persists every change and resumes from the stored state", async () => {
    const time = clock();
    const store = memoryStore();
    const first = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 5_000, now: time.now, store });
    await fail(first, 2);
    expect(store.saved.map((s) => s.state)).toEqual(["closed", "open"]);

    const second = new CircuitBreaker({ failureThreshold: 2, cooldownMs: 5_000, now: time.now, store });
    expect(await second.acquire()).toMatchObject({ allowed: false, retryAfterMs: 5_000 });
    // A half-open state left by a process that died mid-probe lets the next process probe.
    const third = new CircuitBreaker({ now: time.now, store: memoryStore({ ...store.saved[1]!, state: "half-open" }) });
    expect(await third.acquire()).toEqual({ allowed: true, probe: true });
  });

  it("does not write on a success that changes nothing", async () => {
    const store = memoryStore();
    const breaker = new CircuitBreaker({ store });
    for (let i = 0; i < 3; i++) {
      await breaker.acquire();
      await breaker.recordSuccess();
    }
    expect(store.saved).toEqual([]);
  });

  it("ignores an invalid stored state and survives a failing store", async () => {
    const garbage: BreakerStore = { load: async () => ({ state: "sideways" }), save: async () => {} };
    expect((await new CircuitBreaker({ store: garbage }).snapshot()).state).toBe("closed");
    const errors: unknown[] = [];
    const broken: BreakerStore = {
      load: async () => Promise.reject(new Error("db down")),
      save: async () => Promise.reject(new Error("db down")),
    };
    const breaker = new CircuitBreaker({ failureThreshold: 1, store: broken, syncMs: 60_000, onStoreError: (e) => errors.push(e) });
    await fail(breaker, 1);
    expect((await breaker.snapshot()).state).toBe("open");
    expect(errors).toHaveLength(2);
  });

  it("shares one state between processes through an atomic store: failures add up, one opening is seen by all within syncMs", async () => {
    const time = clock();
    const store = sharedStore();
    const options = { failureThreshold: 4, cooldownMs: 10_000, syncMs: 1_000, now: time.now, store };
    const [one, two] = [new CircuitBreaker(options), new CircuitBreaker(options)];
    await Promise.all([fail(one, 2), fail(two, 2)]);
    expect(store.stored()).toMatchObject({ state: "open", consecutiveFailures: 4 });
    // Whichever opened it refuses at once; the other may still allow a call until its copy is syncMs old.
    time.advance(1_000);
    expect(await one.acquire()).toMatchObject({ allowed: false, retryAfterMs: 9_000 });
    expect(await two.acquire()).toMatchObject({ allowed: false, retryAfterMs: 9_000 });
    expect((await two.snapshot()).state).toBe("open");
  });

  it("lets one probe through across processes, and frees the slot of a process that died mid-probe", async () => {
    const time = clock();
    const store = sharedStore();
    const options = { failureThreshold: 1, cooldownMs: 1_000, probeTimeoutMs: 30_000, now: time.now, store };
    const [one, two, three] = [new CircuitBreaker(options), new CircuitBreaker(options), new CircuitBreaker(options)];
    await fail(one, 1);
    time.advance(1_000);
    const permits = await Promise.all([one.acquire(), two.acquire(), three.acquire()]);
    expect(permits.filter((permit) => permit.allowed)).toEqual([{ allowed: true, probe: true }]);
    // The prober dies without a verdict: the others wait until its probe's time is up, then one probes.
    time.advance(29_999);
    expect((await Promise.all([two.acquire(), three.acquire()])).some((permit) => permit.allowed)).toBe(false);
    time.advance(1);
    const retry = await Promise.all([two.acquire(), three.acquire()]);
    expect(retry.filter((permit) => permit.allowed)).toHaveLength(1);
    const prober = retry[0]!.allowed ? two : three;
    await prober.recordSuccess();
    expect(store.stored()).toMatchObject({ state: "closed", consecutiveFailures: 0 });
    time.advance(1_000);
    expect(await one.acquire()).toEqual({ allowed: true, probe: false });
  });

  it("a failed probe in one process re-opens the circuit for all with a doubled cooldown", async () => {
    const time = clock();
    const store = sharedStore();
    const options = { failureThreshold: 1, cooldownMs: 1_000, now: time.now, store };
    const [one, two] = [new CircuitBreaker(options), new CircuitBreaker(options)];
    await fail(one, 1);
    time.advance(1_000);
    expect(await two.acquire()).toEqual({ allowed: true, probe: true });
    await two.recordFailure("still 503");
    expect(store.stored()).toMatchObject({ state: "open", cooldownMs: 2_000, reopensAt: time.now() + 2_000 });
    expect(await one.acquire()).toMatchObject({ allowed: false, retryAfterMs: 2_000 });
  });

  it("closes by hand", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 });
    await fail(breaker, 1);
    await breaker.reset();
    expect(await breaker.snapshot()).toMatchObject({ state: "closed", consecutiveFailures: 0, lastError: null });
  });
});
