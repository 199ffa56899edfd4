// What a request must be before anything reads it, on embedded PGlite and PostgreSQL: JSON declared as
// JSON (415), UTF-8 (400 with the byte offset), within the size limit (413, without reading it all),
// at most 50 procedures per tRPC batch, nothing from another site; and text the databases cannot
// store (a lone surrogate, a NUL, JSON nested 5,000 deep) refused with a 400 naming the field, not
// a 500. Each refusal leaves the database as it was.
import { describe, expect, it } from "vitest";
import { testEngines } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { MAX_TRPC_BODY_BYTES } from "@/server/trpc/schemas";

const { POST: postTraces, DELETE: deleteTraces } = await import("@/app/api/v1/traces/route");
const { GET: getContext } = await import("@/app/api/v1/playbooks/[name]/context/route");
const { POST: postProposal } = await import("@/app/api/v1/playbooks/[name]/proposals/route");
const trpc = await import("@/app/api/trpc/[trpc]/route");

interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> | null };
}

function jsonRequest(url: string, body: BodyInit, headers: Record<string, string> = { "content-type": "application/json" }): Request {
  return new Request(url, {
    method: "POST",
    headers,
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
}

const TRACES_URL = "http://localhost/api/v1/traces";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

describe.each(testEngines())("request checks on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support", as: ["admin", "ada"] });

  /** Everything a refused request must leave as it was. */
  async function state() {
    const [traces, deltas, versions, audit, playbook] = await Promise.all([
      suite.database.db.trace.count(),
      suite.database.db.delta.count(),
      suite.database.db.playbookVersion.count(),
      suite.database.db.auditEntry.count(),
      suite.database.db.playbook.findUniqueOrThrow({ where: { id: suite.playbookId }, select: { version: true } }),
    ]);
    return { traces, deltas, versions, audit, version: playbook.version };
  }

  async function refused(response: Response, status: number, message: RegExp): Promise<ErrorBody> {
    const body = (await response.json()) as ErrorBody;
    expect(response.status, body.error.message).toBe(status);
    expect(body.error.message).toMatch(message);
    return body;
  }

  describe("POST /api/v1/*", () => {
    it("a Host that is not the studio's is refused (DNS rebinding), and every answer carries the security headers", async () => {
      // The agents' API skips proxy.ts (its matcher): the route wrapper does its work.
      const before = await state();
      const body = JSON.stringify({ playbook: "support", task: "Refund order 7", outcome: "failure" });
      const rebound = await postTraces(jsonRequest(TRACES_URL, body, { "content-type": "application/json", host: "evil.example" }));
      expect(rebound.status).toBe(403);
      expect(await rebound.text()).toMatch(/does not answer to the host name "evil\.example"/);
      expect(await state()).toEqual(before);
      const answers = [
        rebound,
        await postTraces(jsonRequest(TRACES_URL, "{", { "content-type": "application/json", host: "localhost:3000" })),
      ];
      expect(answers[1]?.status).toBe(401); // received from elsewhere (a Host came with it) and without a key
      for (const answer of answers) {
        expect(answer.headers.get("content-security-policy")).toBe("default-src 'none'; frame-ancestors 'none'");
        expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
        expect(answer.headers.get("x-frame-options")).toBe("DENY");
        expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      }
      const named = await postTraces(
        jsonRequest(TRACES_URL, "{", { "content-type": "application/json", "x-request-id": "agent-run-0001" }),
      );
      expect(named.headers.get("x-request-id")).toBe("agent-run-0001");
    });

    it("a change that is not declared as JSON is a 415, whatever its body: nothing is stored", async () => {
      const before = await state();
      const body = JSON.stringify({ playbook: "support", task: "Refund order 7", outcome: "failure" });
      // What a cross-site HTML form can send without a preflight.
      await refused(
        await postTraces(jsonRequest(TRACES_URL, body, { "content-type": "text/plain" })),
        415,
        /Content-Type: application\/json \(this request said text\/plain\)/,
      );
      await refused(
        await postTraces(jsonRequest(TRACES_URL, "playbook=support&task=x", { "content-type": "application/x-www-form-urlencoded" })),
        415,
        /application\/json/,
      );
      await refused(await postTraces(new Request(TRACES_URL, { method: "POST", body: new Blob([body]) })), 415, /named no type/);
      await refused(
        await postProposal(
          jsonRequest("http://localhost/api/v1/playbooks/support/proposals", body, { "content-type": "multipart/form-data; boundary=x" }),
          {
            params: Promise.resolve({ name: "support" }),
          },
        ),
        415,
        /application\/json/,
      );
      // JSON with parameters is JSON.
      const ok = await postTraces(jsonRequest(TRACES_URL, body, { "content-type": "Application/JSON; charset=utf-8" }));
      expect(ok.status).toBe(201);
      expect((await state()).traces).toBe(before.traces + 1);
    });

    it("a body that is not UTF-8 is a 400 naming the first bad byte", async () => {
      const before = await state();
      const latin1 = Buffer.concat([Buffer.from('{"playbook": "support", "task": "Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
      const body = await refused(
        await postTraces(jsonRequest(TRACES_URL, latin1)),
        400,
        /not UTF-8 text: byte 36 \(0xE9\) is not UTF-8; the text may be Latin-1/,
      );
      expect(body.error.details).toEqual({ byteOffset: 36 });
      expect(await state()).toEqual(before);
    });

    it("a lone surrogate in a trace is a 400 naming the field, on every trace field and in metadata keys", async () => {
      const before = await state();
      // JSON.stringify writes a lone surrogate as the escape \ud800, as an agent's JSON library would.
      const send = (trace: Record<string, unknown>) =>
        postTraces(
          jsonRequest(
            TRACES_URL,
            JSON.stringify({
              traces: [
                { playbook: "support", task: "ok" },
                { playbook: "support", ...trace },
              ],
            }),
          ),
        );
      await refused(await send({ task: "x\ud800y" }), 400, /^traces\.1\.task: has a lone surrogate \(\\uD800\) at character 2/);
      await refused(await send({ task: "t", output: "cut 😀".slice(0, 5) }), 400, /^traces\.1\.output: has a lone surrogate/);
      await refused(
        await send({ task: "t", metadata: { "k\udc00": 1 } }),
        400,
        /^traces\.1\.metadata\.k.* \(the key "k\\udc00"\): has a lone surrogate/,
      );
      await refused(
        await send({ task: "t", feedback: { errors: ["\ud83d"] } }),
        400,
        /^traces\.1\.feedback\.errors\.0: has a lone surrogate/,
      );
      expect(await state()).toEqual(before);
    });

    it("metadata or feedback nested 5,000 deep is a 400 naming the field", async () => {
      const before = await state();
      // Written as text, as an agent's JSON library sends it (JSON.stringify of such an object overflows the stack first).
      const deep = `${'{"a":'.repeat(5_000)}"leaf"${"}".repeat(5_000)}`;
      const send = (fields: string) => postTraces(jsonRequest(TRACES_URL, `{"playbook": "support", "task": "t", ${fields}}`));
      await refused(await send(`"metadata": ${deep}`), 400, /^metadata\.a\.a\.a\.a\.a\.a\.a\.…: is nested more than 64 levels deep/);
      await refused(
        await send(`"feedback": {"notes": "x", "detail": ${deep}}`),
        400,
        /^feedback\.detail\.a\.a\.a\.a\.a\.a\.…: is nested more than 64 levels deep/,
      );
      expect(await state()).toEqual(before);
    });

    it("a NUL in a name (the playbook, an id) is a 400 naming the field, while a NUL in an agent's text is still stored as U+FFFD", async () => {
      const before = await state();
      const send = (body: unknown) => postTraces(jsonRequest(TRACES_URL, JSON.stringify(body)));
      await refused(await send({ playbook: "sup\u0000port", task: "t" }), 400, /^playbook: has a NUL character \(U\+0000\) at character 4/);
      await refused(
        await send({
          traces: [
            { playbook: "support", task: "t" },
            { playbook: "support\u0000", task: "t" },
          ],
        }),
        400,
        /^traces\.1\.playbook: has a NUL/,
      );
      for (const field of ["externalId", "unitId", "taskId", "model", "experiment", "variant"]) {
        await refused(await send({ playbook: "support", task: "t", [field]: "a\u0000b" }), 400, new RegExp(`^${field}: has a NUL`));
      }
      expect(await state()).toEqual(before);
      const stored = await send({ playbook: "support", task: "t\u0000", output: "a\u0000b", metadata: { note: "x\u0000" } });
      expect(stored.status).toBe(201);
      expect((await state()).traces).toBe(before.traces + 1);
    });

    it("a NUL in a playbook name in the path or the query is a 400 naming the parameter, not a 500", async () => {
      const before = await state();
      const context = (name: string) =>
        // The params are what Next.js decodes from the path (a lone surrogate cannot be percent-encoded at all).
        getContext(new Request("http://localhost/api/v1/playbooks/p/context"), {
          params: Promise.resolve({ name }),
        });
      await refused(await context("sup\u0000port"), 400, /^name: has a NUL character \(U\+0000\) at character 4/);
      await refused(await context("sup\ud800port"), 400, /^name: has a lone surrogate/);
      await refused(
        await deleteTraces(new Request(`${TRACES_URL}?playbook=sup%00port&unitId=u-1`, { method: "DELETE" })),
        400,
        /^playbook: has a NUL/,
      );
      await refused(
        await deleteTraces(new Request(`${TRACES_URL}?playbook=support&unitId=u%001`, { method: "DELETE" })),
        400,
        /^unitId: has a NUL/,
      );
      expect(await state()).toEqual(before);
      expect((await context("support")).status).toBe(200);
    });

    it("a proposal whose file holds a NUL, a lone surrogate or JSON 5,000 deep is a 400 naming where", async () => {
      const before = await state();
      const propose = (body: Record<string, unknown>) =>
        postProposal(jsonRequest("http://localhost/api/v1/playbooks/support/proposals", JSON.stringify(body)), {
          params: Promise.resolve({ name: "support" }),
        });
      await refused(
        await propose({ content: `${SMALL_PLAYBOOK}[str-00009] Check\u0000 the docs\n` }),
        400,
        /^content: has a NUL character \(U\+0000\) at line 7, character 18/,
      );
      await refused(await propose({ content: "## s\n[s-00001] \udfff\n" }), 400, /^content: has a lone surrogate/);
      // Inside the file: a kayba skillbook whose skill holds JSON nested 5,000 deep.
      const deep = `{"skills": {"s-1": {"id": "s-1", "section": "s", "content": "x", "extra": ${"[".repeat(5_000)}${"]".repeat(5_000)}}}, "sections": {"s": ["s-1"]}}`;
      await refused(
        await propose({ content: deep }),
        400,
        /skills\["s-1"\]\.extra\[0\]\[0\]\[0\]\[0\]\[0\]\["…"\]: is nested more than 64 levels deep/,
      );
      expect(await state()).toEqual(before);
    });
  });

  describe("tRPC", () => {
    it("bullet and section text with a NUL or a lone surrogate is refused naming the field; nothing changes", async () => {
      const before = await state();
      const edit = (operation: Record<string, unknown>) =>
        suite.caller.delta.edit({ playbookId: suite.playbookId, reason: "Fix", operations: [operation as never] });
      await expectAppError(
        edit({ type: "update", bulletId: "str-00001", content: "a\u0000b" }),
        "BAD_REQUEST",
        /^operations\.0\.content: has a NUL character \(U\+0000\) at character 2/,
      );
      await expectAppError(
        edit({ type: "add", section: "x\ud800", content: "fine" }),
        "BAD_REQUEST",
        /^operations\.0\.section: has a lone surrogate/,
      );
      await expectAppError(
        edit({ type: "rename_section", section: "common_mistakes_to_avoid", name: "a\u0000" }),
        "BAD_REQUEST",
        /^operations\.0\.name: has a NUL/,
      );
      await expectAppError(
        suite.caller.delta.propose({
          playbookId: suite.playbookId,
          operations: [{ operation: { type: "add", section: "strategies_and_insights", content: "\udc00" } }],
        }),
        "BAD_REQUEST",
        /^operations\.0\.operation\.content: has a lone surrogate/,
      );
      await expectAppError(
        suite.caller.playbook.import({ content: "## s\n[s-00001] a\u0000b\n", format: "ace", target: { kind: "new", name: "nul" } }),
        "BAD_REQUEST",
        /^content: has a NUL character \(U\+0000\) at line 2, character 12/,
      );
      const deep = `{"skills": {"s-1": {"id": "s-1", "section": "s", "content": "x", "extra": ${"[".repeat(5_000)}${"]".repeat(5_000)}}}, "sections": {"s": ["s-1"]}}`;
      await expectAppError(
        suite.caller.playbook.import({ content: deep, target: { kind: "existing", playbookId: suite.playbookId, mode: "merge" } }),
        "BAD_REQUEST",
        /is nested more than 64 levels deep/,
      );
      await expectAppError(
        suite.caller.traces.ingest({ traces: [{ playbook: "support", task: "t", metadata: nested(5_000) as Record<string, unknown> }] }),
        "BAD_REQUEST",
        /^traces\.0\.metadata\.a\.a\.a\.a\.a\.…: is nested more than 64 levels deep/,
      );
      expect(await state()).toEqual(before);
      // NUL in a trace is stored as U+FFFD, as over HTTP.
      const stored = await suite.caller.traces.ingest({ traces: [{ playbook: "support", task: "t", output: "a\u0000b" }] });
      expect((await suite.caller.traces.get({ traceId: stored.traces[0]!.id })).output).toBe("a\ufffdb");
    });

    it("a NUL or a lone surrogate in a playbook name is a 400 naming the field, on create, import and trace ingestion", async () => {
      const before = await state();
      await expectAppError(suite.caller.playbook.create({ name: "sup\u0000port" }), "BAD_REQUEST", /^name: has a NUL character/);
      await expectAppError(suite.caller.playbook.create({ name: "sup\udfffport" }), "BAD_REQUEST", /^name: has a lone surrogate/);
      await expectAppError(
        suite.caller.playbook.import({ content: SMALL_PLAYBOOK, format: "ace", target: { kind: "new", name: "a\u0000" } }),
        "BAD_REQUEST",
        /^target\.name: has a NUL/,
      );
      await expectAppError(
        suite.caller.traces.ingest({ traces: [{ playbook: "support\u0000", task: "t" }] }),
        "BAD_REQUEST",
        /^traces\.0\.playbook: has a NUL/,
      );
      expect(await state()).toEqual(before);
    });

    it("an evidence link must be an http or https URL: javascript:, data: and file: links are refused naming the field", async () => {
      const before = await state();
      const propose = (url: string) =>
        suite.caller.delta.propose({
          playbookId: suite.playbookId,
          operations: [{ operation: { type: "add", section: "strategies_and_insights", content: "Check the order first." } }],
          evidence: { links: [{ label: "ticket", url }] },
        });
      for (const url of [
        "javascript:alert(document.cookie)",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
      ]) {
        await expectAppError(propose(url), "BAD_REQUEST", /An evidence link is an http:\/\/ or https:\/\/ URL/);
      }
      expect(await state()).toEqual(before);
      const accepted = await propose("https://tickets.example.com/T-1");
      const delta = await suite.caller.delta.get({ deltaId: accepted.deltaId! });
      expect(delta.evidence.links).toEqual([{ label: "ticket", url: "https://tickets.example.com/T-1" }]);
    });

    function trpcPost(path: string, body: BodyInit, headers: Record<string, string> = {}): Promise<Response> {
      return trpc.POST(
        new Request(`http://localhost/api/trpc/${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
          ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
        } as RequestInit),
      );
    }

    it("a body that is not UTF-8 is refused naming the byte, as the traces API does", async () => {
      const before = await state();
      const input = Buffer.concat([Buffer.from(`{"json":{"name":"Caf`), Buffer.from([0xe9]), Buffer.from(`"}}`)]);
      const response = await trpcPost("playbook.create", input);
      expect(response.status).toBe(400);
      expect(await response.text()).toMatch(/byte 20 \(0xE9\) is not UTF-8/);
      expect(await state()).toEqual(before);
      // The same request in UTF-8 goes through.
      const ok = await trpcPost("playbook.create", JSON.stringify({ json: { name: "Café" } }));
      expect(ok.status).toBe(200);
    });

    it("over HTTP too: metadata nested 5,000 deep and a lone surrogate are 400s naming the field, not 500s", async () => {
      const before = await state();
      const deep = `${'{"a":'.repeat(5_000)}"leaf"${"}".repeat(5_000)}`;
      const nestedBody = `{"json": {"traces": [{"playbook": "support", "task": "t", "metadata": ${deep}}]}}`;
      const tooDeep = await trpcPost("traces.ingest", nestedBody);
      expect(tooDeep.status).toBe(400);
      expect(await tooDeep.text()).toMatch(/traces\.0\.metadata\.a\.a\.a\.a\.a\.…: is nested more than 64 levels deep/);
      const surrogate = await trpcPost(
        "delta.edit",
        `{"json": {"playbookId": "${suite.playbookId}", "reason": "x", "operations": [{"type": "update", "bulletId": "str-00001", "content": "a\\ud800"}]}}`,
      );
      expect(surrogate.status).toBe(400);
      expect(await surrogate.text()).toMatch(/operations\.0\.content: has a lone surrogate/);
      expect(await state()).toEqual(before);
    });

    it("a body over the limit is refused without being read in full, declared or streamed", async () => {
      const declared = await trpcPost("playbook.import", "{}", { "content-length": String(60 * 1_048_576) });
      expect(declared.status).toBe(413);
      let sent = 0;
      const chunk = new Uint8Array(1_048_576).fill(0x20);
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 60 * 1_048_576) return controller.close();
          sent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const streamed = await trpcPost("playbook.import", stream);
      expect(streamed.status).toBe(413);
      expect(await streamed.text()).toMatch(/larger than 30 MB/);
      // Reading stopped at the limit: 60 MB were on offer.
      expect(sent).toBeLessThanOrEqual(MAX_TRPC_BODY_BYTES + 3 * chunk.byteLength);
    });

    it("a batch of more than 50 procedures is a 400 before any runs; 50 are fine", async () => {
      const many = (count: number) =>
        trpc.GET(
          new Request(
            `http://localhost/api/trpc/${Array.from({ length: count }, () => "playbook.list").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`,
          ),
        );
      const refusedBatch = await many(300);
      expect(refusedBatch.status).toBe(400);
      expect(await refusedBatch.text()).toMatch(/at most 50 procedures; this one calls 300/);
      expect((await many(50)).status).toBe(200);
    });

    it("a change sent by a page of another site is refused before any procedure runs", async () => {
      const before = await state();
      const crossSite = await trpcPost("playbook.create", JSON.stringify({ json: { name: "evil" } }), {
        origin: "https://evil.example",
        "sec-fetch-site": "cross-site",
      });
      expect(crossSite.status).toBe(403);
      expect(await crossSite.text()).toMatch(/Refused a change sent from another site/);
      const noFetchSite = await trpcPost("playbook.create", JSON.stringify({ json: { name: "evil" } }), {
        origin: "https://evil.example",
        host: "localhost",
      });
      expect(noFetchSite.status).toBe(403);
      expect(await state()).toEqual(before);
    });
  });
});
