// Redaction of provider tokens, JWTs, encoded secrets, secrets used as metadata keys and (opt-in)
// US social security numbers, end to end: an agent posts a trace to a running server
// (server/testing/app-server.ts) with its own ACE Studio key, on the embedded engine and on
// PostgreSQL; what the studio then serves, and every row of every table once it has stopped, hold
// none of what was sent.
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { startAppInstance, type AppInstance } from "@/server/testing/app-instance";
import { testEngines } from "@/server/testing/db";

const PLAYBOOK = "billing agent";

const base64url = (text: string) => Buffer.from(text).toString("base64url");
const JWT = `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url('{"sub":"cust-1182","scope":"refunds"}')}.Q9dF3kL0pX7vN2mB8sR4tY6wZ1aC5eG-hJ_uIoKl`;
const GOOGLE_KEY = "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY";
const SLACK_TOKEN = "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy";
const STRIPE_SECRET = "sk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUv";
const STRIPE_RESTRICTED = "rk_live_4eC39HqLyjWDarjtT1zdp7dc";
const NPM_TOKEN = "npm_1a2B3c4D5e6F7g8H9i0JkLmNoPqRsTuVwXyZ";
const URL_HIDDEN = "Zq8xK2vLp9Rt4Wm7Yb3N";
const BASE64_HIDDEN = "sk-proj-Ab3dE6gH9iJ2kL5mN8oP1qR4sT7uV0wX3yZ6";
const SSN = "219-45-6781";
/** Sent while the switch is off: kept as sent. */
const SSN_KEPT = "345-67-8912";

describe.each(testEngines())("redaction of a trace posted over HTTP on %s", (engine) => {
  let instance: AppInstance;
  let aceKey: string;
  let playbookId: string;

  beforeAll(async () => {
    instance = await startAppInstance(engine, { postgresUrl: inject("testPostgresUrl") });
    ({ id: playbookId } = await instance.trpc.playbook.create.mutate({ name: PLAYBOOK }));
    // The reflector would quote the traces into run prompts: off, so what is scanned is what ingestion stored.
    await instance.trpc.playbook.updateSettings.mutate({ playbookId, settings: { reflectorMode: "off" } });
    ({ secret: aceKey } = await instance.trpc.apiKeys.create.mutate({ name: "billing agent", scopes: ["traces:write"], playbooks: "all" }));
  }, 180_000);

  afterAll(async () => {
    await instance?.drop();
  }, 60_000);

  const post = async (trace: Record<string, unknown>) => {
    const response = await fetch(`${instance.url}/api/v1/traces`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${aceKey}` },
      body: JSON.stringify({ traces: [{ playbook: PLAYBOOK, outcome: "failure", ...trace }] }),
    });
    const body = (await response.json()) as { traces: { id: string }[] };
    expect(response.status, JSON.stringify(body)).toBe(201);
    return instance.trpc.traces.get.query({ traceId: body.traces[0]!.id });
  };

  it("keeps a social security number while the switch is off, its default", async () => {
    const stored = await post({ task: `Check the customer with SSN ${SSN_KEPT}.` });
    expect(stored.task).toBe(`Check the customer with SSN ${SSN_KEPT}.`);
    expect(stored.redactions).toBeNull();
  });

  it("stores each kind of secret in task, reasoning, output, feedback and metadata values and keys as its mark, numbering keys that redact alike", async () => {
    await instance.trpc.playbook.updateSettings.mutate({ playbookId, settings: { redaction: { ssns: true } } });
    const stored = await post({
      task: `Call the CRM with ${GOOGLE_KEY} and post to Slack with ${SLACK_TOKEN}; customer SSN ${SSN}.`,
      reasoning: `Redirected to /cb?next=${encodeURIComponent(`https://api.example.com/v1?api_key=${URL_HIDDEN}&limit=1`)}&step=2, config ${Buffer.from(`OPENAI_API_KEY=${BASE64_HIDDEN}`).toString("base64")} loaded.`,
      output: `Charged with ${STRIPE_SECRET}; restricted ${STRIPE_RESTRICTED}; session ${JWT}; published with ${NPM_TOKEN}; agent key ${aceKey}.`,
      feedback: { errors: [`Slack said invalid_auth for ${SLACK_TOKEN}`] },
      metadata: {
        [aceKey]: "the agent's own key, sent as a key",
        [STRIPE_SECRET]: { plan: "pro" },
        nested: { jwt: JWT, [GOOGLE_KEY]: 1 },
        ssn: SSN,
        region: "eu",
      },
    });
    expect(stored.task).toBe("Call the CRM with [REDACTED:secret] and post to Slack with [REDACTED:secret]; customer SSN [REDACTED:ssn].");
    expect(stored.reasoning).toBe("Redirected to /cb?next=[REDACTED:secret]&step=2, config [REDACTED:secret] loaded.");
    expect(stored.output).toBe(
      "Charged with [REDACTED:secret]; restricted [REDACTED:secret]; session [REDACTED:secret]; published with [REDACTED:secret]; agent key [REDACTED:secret].",
    );
    expect(stored.feedback).toMatchObject({ errors: ["Slack said invalid_auth for [REDACTED:secret]"] });
    expect(stored.metadata).toEqual({
      "[REDACTED:secret]": "the agent's own key, sent as a key",
      "[REDACTED:secret]#2": { plan: "pro" },
      nested: { jwt: "[REDACTED:secret]", "[REDACTED:secret]": 1 },
      ssn: "[REDACTED:ssn]",
      region: "eu",
    });
    expect(stored.redactions).toEqual({
      counts: { secret: 14, ssn: 2 },
      fields: [
        "task",
        "reasoning",
        "output",
        "feedback.errors.0",
        "metadata.[REDACTED:secret]",
        "metadata.[REDACTED:secret]#2",
        "metadata.nested.jwt",
        "metadata.nested.[REDACTED:secret]",
        "metadata.ssn",
      ],
    });
  });

  it("leaves none of the redacted secrets in any row of any table, where the scan finds the SSN sent while the switch was off", async () => {
    await instance.stop();
    const handle: DatabaseHandle = await openDatabase(instance.database, { migrate: false });
    try {
      const tables = await handle.db.$queryRaw<{ name: string }[]>`
        SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename <> '_prisma_migrations'`;
      const found: string[] = [];
      // The SSN sent while the switch was off shows the scan reaches what was stored.
      const sent = [
        aceKey,
        JWT,
        GOOGLE_KEY,
        SLACK_TOKEN,
        STRIPE_SECRET,
        STRIPE_RESTRICTED,
        NPM_TOKEN,
        URL_HIDDEN,
        BASE64_HIDDEN,
        SSN,
        SSN_KEPT,
      ];
      for (const { name } of tables) {
        const dump = await handle.db.$queryRawUnsafe<{ row: string }[]>(`SELECT row_to_json(t)::text AS row FROM "${name}" t`);
        for (const { row } of dump) for (const text of sent) if (row.includes(text)) found.push(`${name}: ${text}`);
      }
      expect(found).toEqual([`Trace: ${SSN_KEPT}`]);
    } finally {
      await handle.close();
    }
  }, 60_000);
});
