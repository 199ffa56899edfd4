// Redaction at ingestion (issue 16 §1), against embedded PGlite and PostgreSQL: what is stored, what
// the reflector's prompt receives (the project's mock OpenAI server records it), and the playbook
// settings that refuse a bad custom pattern.
import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import type { ZodError } from "zod";
import { assignUnit } from "@/server/experiments/assignment";
import { JobWorker } from "@/server/jobs/worker";
import { CircuitBreaker } from "@/server/llm/circuit-breaker";
import { loadEnv } from "@/server/config/env";
import { breakerStore, openAiRunProvider, useRunProvider } from "@/server/runs/providers";
import { runHandlers } from "@/server/runs/service";
import { testEngines } from "@/server/testing/db";
import { expectAppError, twoVariants } from "@/server/testing/fixtures";
import { mockOpenAiSuite, playbookSuite } from "@/server/testing/playbook-suite";
import { callerAs } from "@/server/trpc/callers";

const EMAIL = "jane.doe@example.com";
const CARD = "4111 1111 1111 1111";
const API_KEY = "sk-proj-Ab3dE6gH9iJ2kL5mN8oP1qR4sT7uV0wX3yZ6";
const SECRETS = [EMAIL, CARD, API_KEY, "4111111111111111"];

const reflection = {
  reasoning: "The agent followed the cited strategy.",
  errorIdentification: "",
  rootCause: "",
  correctApproach: "Check the refund policy first.",
  keyInsight: "Check the policy first.",
  bulletTags: [{ id: "str-00001", tag: "helpful", justification: "It decided the answer." }],
};

describe.each(testEngines())("redaction at ingestion on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "tester"] });
  const openAi = mockOpenAiSuite();

  const leaky = {
    playbook: "support",
    externalId: "leak-1",
    task: `Refund the order of ${EMAIL}, card ${CARD}.`,
    reasoning: `Called the billing API with Authorization: Bearer ${API_KEY} as [str-00001] says, on 2026-11-26.`,
    output: "Refunded 42 EUR.",
    outcome: "success" as const,
    feedback: { notes: `Customer ${EMAIL} confirmed.` },
    metadata: { customer: { email: EMAIL, tier: "gold" }, keys: [API_KEY], count: 3 },
  };

  it("stores a trace with an email, a card number and an API key with none of them, and counts what was replaced where", async () => {
    await suite.caller.playbook.updateSettings({ playbookId: suite.playbookId, settings: { redaction: { emails: true } } });
    const { traces } = await suite.caller.traces.ingest({ traces: [leaky] });
    const stored = await suite.database.db.trace.findUniqueOrThrow({ where: { id: traces[0]!.id } });
    const json = JSON.stringify(stored);
    for (const secret of SECRETS) expect(json).not.toContain(secret);
    expect(stored.task).toBe("Refund the order of [REDACTED:email], card [REDACTED:card].");
    expect(stored.reasoning).toContain("Bearer [REDACTED:secret] as [str-00001] says, on 2026-11-26.");
    expect(stored.output).toBe("Refunded 42 EUR.");
    expect(stored.metadata).toEqual({ customer: { email: "[REDACTED:email]", tier: "gold" }, keys: ["[REDACTED:secret]"], count: 3 });
    expect(stored.citedBulletIds).toEqual(["str-00001"]);

    const detail = await suite.caller.traces.get({ traceId: traces[0]!.id });
    expect(detail.redactions).toEqual({
      counts: { email: 3, card: 1, secret: 2 },
      fields: ["task", "reasoning", "feedback.notes", "metadata.customer.email", "metadata.keys.0"],
    });
  });

  it("by default redacts secrets and cards but keeps emails, and records nothing for a clean trace", async () => {
    const { traces } = await suite.caller.traces.ingest({
      traces: [leaky, { playbook: "support", task: "Refund order 1182 from 2026-11-26" }],
    });
    const [first, clean] = await Promise.all(traces.map((trace) => suite.caller.traces.get({ traceId: trace.id })));
    expect(first!.task).toBe(`Refund the order of ${EMAIL}, card [REDACTED:card].`);
    expect(first!.redactions?.counts).toEqual({ card: 1, secret: 2 });
    expect(clean!.task).toBe("Refund order 1182 from 2026-11-26");
    expect(clean!.redactions).toBeNull();
  });

  it("applies a playbook's custom pattern, and stores a personal unit id as a keyed hash the same way each time", async () => {
    await suite.caller.playbook.updateSettings({
      playbookId: suite.playbookId,
      settings: { redaction: { customPatterns: [{ name: "ticket", pattern: "TCK-[0-9]{6}" }] } },
    });
    const { traces } = await suite.caller.traces.ingest({
      traces: [
        { playbook: "support", task: "Close TCK-123456", unitId: EMAIL },
        { playbook: "support", task: "Close TCK-654321", unitId: EMAIL },
        { playbook: "support", task: "Other", unitId: "agent-7" },
      ],
    });
    const [one, two, other] = await Promise.all(traces.map((trace) => suite.caller.traces.get({ traceId: trace.id })));
    expect(one!.task).toBe("Close [REDACTED:ticket]");
    expect(one!.unitId).toMatch(/^hmac:[0-9a-f]{64}$/);
    expect(two!.unitId).toBe(one!.unitId);
    expect(one!.redactions).toEqual({ counts: { ticket: 1 }, fields: ["task"], unitIdHashed: true });
    expect(other!.unitId).toBe("agent-7");
    expect(other!.redactions).toBeNull();
  });

  it("refuses each bad custom pattern with its reason, naming the field, and saves nothing", async () => {
    const save = (pattern: string) =>
      suite.caller.playbook.updateSettings({
        playbookId: suite.playbookId,
        settings: { redaction: { customPatterns: [{ name: "bad", pattern }] } },
      });
    const refusal = async (pattern: string) => {
      const error = await save(pattern).then(
        () => null,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(TRPCError);
      expect((error as TRPCError).code).toBe("BAD_REQUEST");
      const [issue] = ((error as TRPCError).cause as ZodError).issues;
      return { field: issue!.path.join("."), message: issue!.message };
    };
    const field = "settings.redaction.customPatterns.0.pattern";
    expect(await refusal("a(")).toEqual({
      field,
      message: expect.stringMatching(/^The pattern "bad" is not a valid RE2 regular expression: missing closing \)/),
    });
    expect(await refusal("(a)\\1")).toEqual({ field, message: expect.stringMatching(/backreference/) });
    expect(await refusal("x(?=y)")).toEqual({ field, message: expect.stringMatching(/lookahead or lookbehind/) });
    expect(await refusal("x*")).toEqual({ field, message: expect.stringMatching(/matches the empty string/) });
    const playbook = await suite.database.db.playbook.findUniqueOrThrow({ where: { id: suite.playbookId }, select: { settings: true } });
    expect(JSON.stringify(playbook.settings)).not.toContain('customPatterns":[{');
  });

  it("a playbook without redaction settings of its own follows the studio default, until it sets its own", async () => {
    await expectAppError(
      callerAs(suite.database.db, "curator", "cora").traces.setStudioRedaction({
        ...(await suite.caller.traces.studioRedaction()),
        emails: true,
      }),
      "FORBIDDEN",
      /.+/,
    );
    const studio = await suite.caller.traces.setStudioRedaction({
      secrets: true,
      cards: true,
      emails: true,
      phones: false,
      ibans: false,
      customPatterns: [],
    });
    expect(await suite.caller.traces.studioRedaction()).toEqual(studio);
    expect((await suite.caller.playbook.get({ playbookId: suite.playbookId })).settings.redaction).toEqual(studio);
    // Another setting changed: still following the studio default.
    await suite.caller.playbook.updateSettings({ playbookId: suite.playbookId, settings: { autoApply: true } });
    const task = async (text: string) => {
      const { traces } = await suite.caller.traces.ingest({ traces: [{ playbook: "support", task: text }] });
      return (await suite.caller.traces.get({ traceId: traces[0]!.id })).task;
    };
    expect(await task(`Mail ${EMAIL}`)).toBe("Mail [REDACTED:email]");
    // Its own settings start from the studio default: emails stay on, phones added.
    await suite.caller.playbook.updateSettings({ playbookId: suite.playbookId, settings: { redaction: { phones: true } } });
    await suite.caller.traces.setStudioRedaction({ ...studio, emails: false });
    expect(await task(`Mail ${EMAIL} or call +44 20 7946 0958`)).toBe("Mail [REDACTED:email] or call [REDACTED:phone]");
  });

  it("a personal unit id is one unit: assignment and its traces record one exposure under the keyed hash, in the same variant", async () => {
    await suite.caller.experiments.create({ ...twoVariants(), status: "running" });
    const assigned = await assignUnit(suite.database.db, "tone", EMAIL);
    expect(assigned.inExperiment).toBe(true);
    const { traces } = await suite.caller.traces.ingest({
      traces: [{ playbook: "support", task: "Refund", experiment: "tone", unitId: EMAIL }],
    });
    const trace = await suite.caller.traces.get({ traceId: traces[0]!.id });
    expect(trace.variant).toBe(assigned.variant);
    const exposures = await suite.database.db.experimentExposure.findMany({ select: { unitId: true, variant: true } });
    expect(exposures).toEqual([{ unitId: trace.unitId, variant: assigned.variant }]);
    expect(JSON.stringify(exposures)).not.toContain(EMAIL);
  });

  it("a dry run shows what settings would replace in the playbook's newest traces, for curators, before saving", async () => {
    await suite.caller.traces.ingest({
      traces: [
        { playbook: "support", task: "Close TCK-123456 for jane@example.com" },
        { playbook: "support", task: "Nothing here" },
        { playbook: "support", task: "Close TCK-654321", metadata: { ticket: "TCK-000001" } },
      ],
    });
    const redaction = {
      secrets: true,
      cards: true,
      emails: false,
      phones: false,
      ibans: false,
      customPatterns: [{ name: "ticket", pattern: "TCK-[0-9]{6}" }],
    };
    const preview = await callerAs(suite.database.db, "curator", "cora").traces.redactionPreview({
      playbookId: suite.playbookId,
      redaction,
    });
    expect(preview).toMatchObject({ scanned: 3, tracesMatched: 2, counts: { ticket: 3 } });
    expect(preview.examples.map((example) => [example.field, example.excerpt])).toEqual([
      ["task", "Close [REDACTED:ticket]"],
      ["metadata.ticket", "[REDACTED:ticket]"],
      ["task", "Close [REDACTED:ticket] for jane@example.com"],
    ]);
    // Nothing was saved or rewritten.
    const stored = await suite.database.db.trace.findMany({ select: { task: true } });
    expect(stored.map((trace) => trace.task).sort()).toContain("Close TCK-654321");

    await expectAppError(
      callerAs(suite.database.db, "viewer", "vic").traces.redactionPreview({ playbookId: suite.playbookId, redaction }),
      "FORBIDDEN",
      /.+/,
    );
    await expect(
      suite.caller.traces.redactionPreview({
        playbookId: suite.playbookId,
        redaction: { ...redaction, customPatterns: [{ name: "bad", pattern: "(a)\\1" }] },
      }),
    ).rejects.toThrow(/backreference/);
  });

  it("a dry run with a kind turned on shows a metadata key it would replace as the key's mark, with its value", async () => {
    await suite.caller.traces.ingest({
      traces: [{ playbook: "support", task: "Verify the customer", metadata: { "219-45-6781": "verified", region: "eu" } }],
    });
    const preview = await suite.caller.traces.redactionPreview({
      playbookId: suite.playbookId,
      redaction: { secrets: true, cards: true, emails: false, phones: false, ibans: false, ssns: true, customPatterns: [] },
    });
    expect(preview).toMatchObject({ scanned: 1, tracesMatched: 1, counts: { ssn: 1 } });
    expect(preview.examples.map((example) => [example.field, example.excerpt])).toEqual([
      ["metadata.[REDACTED:ssn]", "[REDACTED:ssn]: verified"],
    ]);
  });

  it("the reflector's prompt receives none of them", async () => {
    const config = loadEnv({
      OPENAI_BASE_URL: openAi.mock.url,
      OPENAI_API_KEY: "test-key",
      ACE_LLM_MAX_RETRIES: "1",
      ACE_LLM_TIMEOUT_MS: "5000",
    }).llm;
    const breaker = new CircuitBreaker({ failureThreshold: 5, cooldownMs: 60_000, store: breakerStore(suite.database.db) });
    useRunProvider(suite.database.db, openAiRunProvider(suite.database.db, config, { breaker, sdk: { sleep: async () => undefined } }));
    await suite.caller.playbook.updateSettings({
      playbookId: suite.playbookId,
      settings: { redaction: { emails: true }, curatorMode: "off" },
    });
    openAi.mock.script({ content: reflection });
    await suite.caller.traces.ingest({ traces: [leaky] });
    await new JobWorker(suite.database.db, {
      handlers: runHandlers(),
      concurrency: 1,
      backoff: { baseMs: 10, maxMs: 40, jitter: 0 },
      logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    }).drain();

    const chat = openAi.mock.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chat).toHaveLength(1);
    const prompt = JSON.stringify(chat[0]!.body.messages);
    expect(prompt).toContain("[REDACTED:email]");
    expect(prompt).toContain("[REDACTED:card]");
    for (const secret of SECRETS) expect(prompt).not.toContain(secret);
  });
});
