// The mock server's "ace" mode, used by e2e tests and benchmarks, through the real provider.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { hashEmbedding, startMockOpenAi, type MockOpenAi } from "../testing/mock-openai";
import { loadEnv } from "@/server/config/env";
import { createOpenAiProvider, forgetStructuredOutputFallbacks } from "./openai-provider";
import type { ChatMessage } from "./types";

const reflectionSchema = z.object({
  reasoning: z.string(),
  errorIdentification: z.string(),
  keyInsight: z.string().min(10),
  confidence: z.number().min(0).max(1),
  bulletTags: z.array(z.object({ id: z.string().regex(/^[a-z]+-\d{5}$/), tag: z.enum(["helpful", "harmful", "neutral"]) })),
});
const curationSchema = z.object({
  reasoning: z.string(),
  operations: z
    .array(
      z.discriminatedUnion("type", [
        z.object({
          type: z.literal("ADD"),
          section: z.string(),
          content: z.string().min(1),
          bulletIds: z.array(z.string()),
          confidence: z.number().min(0).max(1),
        }),
        z.object({ type: z.literal("REMOVE"), bulletId: z.string() }),
      ]),
    )
    .min(1),
});
const playbook = "## Strategies\n[str-00001] Paginate list calls.\n[str-00002] Check units.\n## Mistakes\n[err-00003] Never guess ids.";
const reflectorMessages: ChatMessage[] = [
  { role: "system", content: "You are the Reflector of ACE." },
  { role: "user", content: `Playbook:\n${playbook}\n\nTask: sum the invoices of March.` },
];
const curatorMessages: ChatMessage[] = [
  { role: "system", content: "You are the Curator of ACE." },
  { role: "user", content: `Reflection: pagination mattered.\nPlaybook:\n${playbook}` },
];

let mock: MockOpenAi;
beforeAll(async () => {
  mock = await startMockOpenAi({ mode: "ace" });
});
afterAll(async () => {
  await mock.close();
});

const provider = (url: string) => createOpenAiProvider(loadEnv({ OPENAI_BASE_URL: url }).llm, { warn: () => {} });

describe("mock OpenAI in ace mode", () => {
  it("answers a reflection that tags every bullet of the prompt as helpful", async () => {
    const result = await provider(mock.url).complete({
      purpose: "reflector",
      messages: reflectorMessages,
      schema: reflectionSchema,
      schemaName: "reflection",
    });
    expect(result.parsed.ok).toBe(true);
    if (!result.parsed.ok) return;
    expect(result.parsed.value.bulletTags).toEqual([
      { id: "str-00001", tag: "helpful" },
      { id: "str-00002", tag: "helpful" },
      { id: "err-00003", tag: "helpful" },
    ]);
    expect(result.parsed.value.confidence).toBeGreaterThanOrEqual(0);
    expect(result.parsed.value.confidence).toBeLessThanOrEqual(1);
  });

  it("answers a curation with one ADD operation derived from the prompt", async () => {
    const request = { purpose: "curator", messages: curatorMessages, schema: curationSchema, schemaName: "curation" } as const;
    const result = await provider(mock.url).complete(request);
    expect(result.parsed.ok).toBe(true);
    if (!result.parsed.ok) return;
    expect(result.parsed.value.operations).toEqual([
      {
        type: "ADD",
        section: "Strategies",
        content: expect.stringContaining("Reflection pagination mattered"),
        bulletIds: [],
        confidence: 0.8,
      },
    ]);
    // Deterministic per prompt, different across prompts.
    const again = await provider(mock.url).complete(request);
    expect(again.rawText).toBe(result.rawText);
    const other = await provider(mock.url).complete({
      ...request,
      messages: [curatorMessages[0]!, { role: "user", content: "Other task" }],
    });
    expect(other.rawText).not.toBe(result.rawText);
  });

  it("adds to a section the prompt offers, about the task it names", async () => {
    const result = await provider(mock.url).complete({
      purpose: "curator",
      messages: [
        curatorMessages[0]!,
        { role: "user", content: 'Sections (use these names for ADD): "Mistakes", "Strategies"\nTask: Sum the March invoices' },
      ],
      schema: curationSchema,
      schemaName: "curation",
    });
    expect(result.parsed).toMatchObject({
      ok: true,
      value: { operations: [{ section: "Mistakes", content: expect.stringContaining("about Sum the March invoices,") }] },
    });
  });

  it("reads the schema from the system message on a server without structured outputs", async () => {
    const legacy = await startMockOpenAi({ mode: "ace", rejectJsonSchema: true });
    try {
      forgetStructuredOutputFallbacks();
      const result = await provider(legacy.url).complete({
        purpose: "reflector",
        messages: reflectorMessages,
        schema: reflectionSchema,
        schemaName: "reflection",
      });
      expect(result).toMatchObject({ mode: "json_object", attempts: 2, parsed: { ok: true } });
    } finally {
      await legacy.close();
    }
  });

  it("answers embeddings with deterministic unit vectors that reflect shared words", async () => {
    const [a, b, c] = await provider(mock.url).embed!(["check the units", "check the units", "paginate list calls"]);
    expect(a).toEqual(b);
    expect(a).toHaveLength(256);
    const dot = (x: number[], y: number[]) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);
    expect(dot(a!, a!)).toBeCloseTo(1, 10);
    expect(dot(a!, hashEmbedding("check units"))).toBeGreaterThan(dot(a!, c!));
  });

  it("runs standalone: tsx server/testing/mock-openai.ts --port 0 --mode ace", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/testing/mock-openai.ts", "--port", "0", "--mode", "ace"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let output = "";
      child.stdout.setEncoding("utf8");
      const url = await new Promise<string>((found, fail) => {
        child.stdout.on("data", (chunk: string) => {
          output += chunk;
          const match = /OPENAI_BASE_URL=(\S+)/.exec(output);
          if (match) found(match[1]!);
        });
        child.once("exit", (code) => fail(new Error(`mock exited with ${code}: ${output}`)));
      });
      const result = await provider(url).complete({
        purpose: "curator",
        messages: curatorMessages,
        schema: curationSchema,
        schemaName: "curation",
      });
      expect(result.parsed.ok).toBe(true);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }, 20_000);
});
