// The probe of a playbook-restricted admin key, over HTTP against a running app instance
// (server/testing/app-server.ts) on embedded PGlite and on PostgreSQL: restricted to playbook
// "alpha", it cannot approve or reject a delta of "beta", read beta's deltas, traces or audit
// entries, change the studio retention, or create an unrestricted key or a user. And a restricted
// experiments:write key's PATCH /api/v1/experiments/{key} answers at once while agents poll context
// (it held the embedded database for 30 s).
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, inject, it, onTestFailed } from "vitest";
import { startAppInstance, type AppInstance } from "@/server/testing/app-instance";
import { testEngines } from "@/server/testing/db";
import { SMALL_PLAYBOOK, twoVariants } from "@/server/testing/fixtures";
import type { AppRouter } from "@/server/trpc/root";

function trpcAt(instance: AppInstance, key?: string) {
  return instance.trpcWith(key ? { authorization: `Bearer ${key}` } : {});
}

/** The call fails over HTTP with a 403 whose message names the restriction. */
async function expectRestricted(call: Promise<unknown>, message = /restricted to the playbook "alpha"/) {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TRPCClientError);
  const clientError = error as TRPCClientError<AppRouter>;
  expect(clientError.data?.httpStatus).toBe(403);
  expect(clientError.message).toMatch(message);
}

describe.each(testEngines())("a restricted key over HTTP on %s", (engine) => {
  let instance: AppInstance | undefined;
  const ids = { alpha: "", beta: "", betaDelta: "", betaSecondDelta: "" };
  let adminSecret = "";
  let experimentsSecret = "";

  beforeAll(async () => {
    instance = await startAppInstance(engine, {
      postgresUrl: inject("testPostgresUrl"),
      // The db layer refuses outer-client queries inside a transaction, as under vitest.
      env: { ACE_TRANSACTION_GUARD: "on" },
    });
    // Nobody has an account yet and the request comes from this computer: the local operator sets up.
    const local = trpcAt(instance);
    for (const name of ["alpha", "beta"] as const) {
      ids[name] = (
        await local.playbook.import.mutate({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name } })
      ).playbookId;
      await local.experiments.create.mutate(twoVariants({ key: `exp-${name}`, playbook: name, status: "running" }));
    }
    const propose = (content: string) =>
      local.delta.propose.mutate({
        playbookId: ids.beta,
        operations: [{ operation: { type: "add", section: "strategies_and_insights", content } }],
        rationale: "From a review.",
      });
    ids.betaDelta = (await propose("Confirm the order number before refunding.")).deltaId;
    ids.betaSecondDelta = (await propose("Ask for the receipt before a refund.")).deltaId;
    await local.traces.ingest.mutate({ traces: [{ playbook: "beta", task: "Refund order 7", output: "Done.", outcome: "success" }] });
    adminSecret = (await local.apiKeys.create.mutate({ name: "alpha admin", scopes: ["admin"], playbooks: [ids.alpha] })).secret;
    experimentsSecret = (
      await local.apiKeys.create.mutate({
        name: "alpha experiments",
        scopes: ["experiments:write", "context:read"],
        playbooks: [ids.alpha],
      })
    ).secret;
  }, 120_000);

  afterAll(async () => {
    await instance?.drop();
  });

  it("cannot approve or reject another playbook's delta, and the playbook stays at its version", async () => {
    onTestFailed(() => console.error(instance?.log.join("")));
    const key = trpcAt(instance!, adminSecret);
    await expectRestricted(key.delta.approve.mutate({ deltaId: ids.betaDelta }));
    await expectRestricted(key.delta.reject.mutate({ deltaId: ids.betaDelta, reason: "no" }));
    await expectRestricted(key.delta.bulk.mutate({ action: "reject", deltaIds: [ids.betaDelta, ids.betaSecondDelta], reason: "no" }));
    const local = trpcAt(instance!);
    expect((await local.playbook.get.query({ playbookId: ids.beta })).version).toBe(1);
    expect((await local.delta.get.query({ deltaId: ids.betaDelta })).status).toBe("pending");
    expect((await local.delta.get.query({ deltaId: ids.betaSecondDelta })).status).toBe("pending");
  });

  it("cannot read another playbook's deltas, traces or audit entries, and its lists hold its own playbook only", async () => {
    const key = trpcAt(instance!, adminSecret);
    await expectRestricted(key.delta.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.delta.get.query({ deltaId: ids.betaDelta }));
    await expectRestricted(key.traces.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.audit.list.query({ playbookId: ids.beta }));
    await expectRestricted(key.audit.list.query({}), /studio-wide/);
    const deltas = await key.delta.list.query({});
    expect(deltas.total).toBe(0);
    expect((await key.traces.list.query({})).total).toBe(0);
    expect((await key.playbook.list.query()).map((playbook) => playbook.name)).toEqual(["alpha"]);
  });

  it("cannot change the studio retention, create an unrestricted key or any user", async () => {
    const key = trpcAt(instance!, adminSecret);
    const local = trpcAt(instance!);
    const retention = await local.retention.studioDefault.query();
    await expectRestricted(key.retention.setStudioDefault.mutate({ ...retention, traces: 1 }), /studio-wide/);
    expect(await local.retention.studioDefault.query()).toEqual(retention);
    await expectRestricted(key.apiKeys.create.mutate({ name: "wide", scopes: ["admin"], playbooks: "all" }));
    await expectRestricted(
      key.users.create.mutate({ email: "eve@example.test", name: "Eve", role: "admin", password: "a long enough password" }),
      /studio-wide/,
    );
    expect((await local.apiKeys.list.query()).map((listed) => listed.name).sort()).toEqual(["alpha admin", "alpha experiments"]);
    // Within its rights it may act: a key for its own playbook.
    await expect(key.apiKeys.create.mutate({ name: "alpha helper", scopes: ["admin"], playbooks: [ids.alpha] })).resolves.toMatchObject({
      name: "alpha helper",
    });
  });

  it(`answers a restricted key's experiment PATCH within a second while ten agents poll context (${engine})`, async () => {
    onTestFailed(() => console.error(instance?.log.join("")));
    const headers = { authorization: `Bearer ${experimentsSecret}` };
    const started = Date.now();
    const timed = async (request: Promise<Response>) => {
      const response = await request;
      return { status: response.status, ms: Date.now() - started, text: await response.text() };
    };
    const [patch, ...polls] = await Promise.all([
      timed(
        fetch(`${instance!.url}/api/v1/experiments/exp-alpha`, {
          method: "PATCH",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify({ name: "Tone, renamed" }),
        }),
      ),
      ...Array.from({ length: 10 }, () => timed(fetch(`${instance!.url}/api/v1/playbooks/alpha/context`, { headers }))),
    ]);
    expect(patch.status, patch.text).toBe(200);
    expect(JSON.parse(patch.text)).toMatchObject({ key: "exp-alpha", name: "Tone, renamed" });
    expect(patch.ms).toBeLessThan(1_000);
    expect(polls.map((poll) => poll.status)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(Math.max(...polls.map((poll) => poll.ms))).toBeLessThan(1_000);
    // The other playbook's experiment stays out of reach, and unchanged.
    const other = await fetch(`${instance!.url}/api/v1/experiments/exp-beta`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: "Taken" }),
    });
    expect(other.status).toBe(403);
    expect(await other.text()).toMatch(/may not touch the playbook \\?"beta/);
  });
});
