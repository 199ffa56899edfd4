// The compiled context through GET /api/v1/playbooks/{name}/context and the tRPC preview, against
// embedded PGlite and PostgreSQL. The route's getDb() is pointed at the test database.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { compileContext, type ContextSection } from "@/server/ace/context";
import { countTokens } from "@/server/ace/tokens";
import { HEAD_TTL_MS } from "@/server/context/heads";
import { setContextClock } from "@/server/context/publication";
import { compileTarget, forgetCompiledContexts, resolveContextTarget } from "@/server/context/service";
import { BULLET_SELECT } from "@/server/playbooks/repository";
import { openTestDatabase, testEngines } from "@/server/testing/db";
import { playbookSuite } from "@/server/testing/playbook-suite";
import { expectAppError } from "@/server/testing/fixtures";
import { callerAs } from "@/server/trpc/callers";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";

const { GET } = await import("@/app/api/v1/playbooks/[name]/context/route");

const FIXTURES = PLAYBOOK_FIXTURES_DIR;
const APPWORLD = readFileSync(path.join(FIXTURES, "ace-appworld__appworld_offline_trained_no_gt_playbook.txt"), "utf8");

interface ContextBody {
  playbook: string;
  version: number;
  tokens: number;
  budget: number;
  bulletCount: number;
  includedBullets: number;
  omittedBullets: number;
  context: string;
}
interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

/** `name` as it appears in the URL path (percent-encoded), as Next.js may pass it on. */
function get(name: string, query = "", headers: Record<string, string> = {}) {
  const url = `http://localhost/api/v1/playbooks/${encodeURIComponent(name)}/context${query ? `?${query}` : ""}`;
  return GET(new Request(url, { headers }), { params: Promise.resolve({ name }) });
}

describe.each(testEngines())("compiled context on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "support agent", as: ["admin", "tester"] });

  it("answers the whole playbook ranked by score, with the default budget, an ETag and no-cache", async () => {
    const response = await get("support agent");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    const body = (await response.json()) as ContextBody;
    expect(body).toMatchObject({
      playbook: "support agent",
      version: 1,
      budget: 80_000,
      bulletCount: 4,
      includedBullets: 4,
      omittedBullets: 0,
    });
    expect(body.context).toBe(
      [
        "## strategies_and_insights",
        "[str-00001] helpful=3 harmful=0 :: Always verify data types before processing numeric fields.",
        "[str-00003] helpful=0 harmful=0 :: Paginate through every page of results before answering.",
        "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.",
        "## common_mistakes_to_avoid",
        "[mis-00004] helpful=2 harmful=0 :: Don't forget timezone conversions when comparing dates.",
        "",
      ].join("\n"),
    );
    expect(body.tokens).toBe(countTokens(body.context));
    expect(response.headers.get("x-context-tokens")).toBe(String(body.tokens));
  });

  it("answers 304 to its own ETag until the playbook changes", async () => {
    const first = await get("support agent");
    const etag = first.headers.get("etag") as string;

    const again = await get("support agent", "", { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("cache-control")).toBe("no-cache");
    expect(await again.text()).toBe("");
    expect((await get("support agent", "", { "if-none-match": `"other", W/${etag}` })).status).toBe(304);

    // Other options are another representation with another tag.
    const plain = await get("support agent", "counters=false", { "if-none-match": etag });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("etag")).not.toBe(etag);
    expect((await get("support agent", "format=text")).headers.get("etag")).not.toBe(etag);
    expect((await get("support agent", "budget=50")).headers.get("etag")).not.toBe(etag);

    await suite.caller.delta.edit({
      playbookId: suite.playbookId,
      reason: "A new lesson",
      operations: [{ type: "add", section: "strategies_and_insights", content: "Log every refund with its reason." }],
    });
    const changed = await get("support agent", "", { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    const body = (await changed.json()) as ContextBody;
    expect(body).toMatchObject({ version: 2, bulletCount: 5 });
    expect(body.context).toContain("Log every refund with its reason.");
  });

  it("requests for a version not compiled yet, arriving together, share one compile", async () => {
    forgetCompiledContexts();
    const target = await resolveContextTarget(suite.database.db, { name: "support agent" }, { includeCounters: true, format: "json" });
    const [first, second] = await Promise.all([compileTarget(suite.database.db, target), compileTarget(suite.database.db, target)]);
    expect(second).toBe(first);
    expect(first.result.bulletCount).toBe(4);
    // Then from the cache: the same answer, not a new compile.
    expect(await compileTarget(suite.database.db, target)).toBe(first);
  });

  it("cuts to the budget, leaving out the lowest-ranked bullets", async () => {
    const whole = (await (await get("support agent")).json()) as ContextBody;
    const lastLine = "[str-00002] helpful=1 harmful=4 :: Retry failed API calls immediately without any backoff.\n";
    const budget = whole.tokens - countTokens(lastLine);
    const cut = (await (await get("support agent", `budget=${budget}`)).json()) as ContextBody;
    expect(cut).toMatchObject({ budget, tokens: budget, includedBullets: 3, omittedBullets: 1 });
    expect(cut.context).not.toContain("str-00002");
    const tighter = (await (await get("support agent", `budget=${budget - 1}`)).json()) as ContextBody;
    expect(tighter.omittedBullets).toBe(2);
    const none = (await (await get("support agent", "budget=0")).json()) as ContextBody;
    expect(none).toMatchObject({ context: "", tokens: 0, includedBullets: 0, omittedBullets: 4 });
  });

  it("takes its default budget from the playbook's settings", async () => {
    await suite.caller.playbook.updateSettings({ playbookId: suite.playbookId, settings: { tokenBudget: 100 } });
    const body = (await (await get("support agent")).json()) as ContextBody;
    expect(body.budget).toBe(100);
    expect(body.tokens).toBeLessThanOrEqual(100);
  });

  it("leaves counters out with counters=false, and answers the text alone with format=text", async () => {
    const plain = (await (await get("support agent", "counters=false")).json()) as ContextBody;
    expect(plain.context.split("\n").slice(0, 2)).toEqual([
      "## strategies_and_insights",
      "[str-00001] Always verify data types before processing numeric fields.",
    ]);
    expect(plain.context).not.toContain("helpful=");
    expect(plain.tokens).toBe(countTokens(plain.context));

    const text = await get("support agent", "format=text&counters=false&budget=60");
    expect(text.status).toBe(200);
    expect(text.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(text.headers.get("x-playbook-version")).toBe("1");
    const body = await text.text();
    expect(body).toBe(((await (await get("support agent", "counters=false&budget=60")).json()) as ContextBody).context);
    expect(countTokens(body)).toBeLessThanOrEqual(60);
  });

  it("finds a playbook by its name whether the path arrives encoded or decoded", async () => {
    const encoded = await GET(new Request("http://localhost/api/v1/playbooks/support%20agent/context"), {
      params: Promise.resolve({ name: "support%20agent" }),
    });
    expect(encoded.status).toBe(200);
  });

  it("an unknown playbook is a 404 and a bad option a 400 naming it, both as JSON", async () => {
    const missing = await get("nope");
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as ErrorBody).error).toMatchObject({ code: "NOT_FOUND", message: expect.stringMatching(/"nope"/) });

    for (const [query, path] of [
      ["budget=lots", "budget"],
      ["budget=-5", "budget"],
      ["budget=1.5", "budget"],
      ["budget=99999999", "budget"],
      ["counters=maybe", "counters"],
      ["format=xml", "format"],
    ]) {
      const response = await get("support agent", query);
      expect(response.status, query).toBe(400);
      expect(
        ((await response.json()) as ErrorBody).error.issues?.map((issue) => issue.path),
        query,
      ).toEqual([path]);
    }
  });

  it("the studio's tRPC preview gives the same answer as the HTTP endpoint", async () => {
    const http = (await (await get("support agent", "budget=70&counters=false")).json()) as ContextBody;
    const preview = await suite.caller.context.get({ playbookId: suite.playbookId, budget: 70, counters: false });
    expect(preview).toEqual(http);
    await expectAppError(suite.caller.context.get({ playbookId: "00000000-0000-4000-8000-000000000000" }), "NOT_FOUND", /playbook/);
    await expectAppError(suite.caller.context.get({ playbookId: suite.playbookId, budget: -5 }), "BAD_REQUEST", /budget/);
    await expectAppError(suite.caller.context.get({ playbookId: "support agent" }), "BAD_REQUEST", /playbookId/);
  });

  it("bullets whose token count was never stored are counted and cut like the others", async () => {
    await suite.database.db.bullet.updateMany({ where: { playbookId: suite.playbookId }, data: { tokenCount: -1 } });
    const body = (await (await get("support agent")).json()) as ContextBody;
    expect(body).toMatchObject({ bulletCount: 4, includedBullets: 4 });
    expect(body.tokens).toBe(countTokens(body.context));
  });

  it("archived bullets are not part of the context", async () => {
    await suite.database.db.bullet.update({
      where: { playbookId_externalId: { playbookId: suite.playbookId, externalId: "str-00001" } },
      data: { status: "archived" },
    });
    const body = (await (await get("support agent")).json()) as ContextBody;
    expect(body).toMatchObject({ bulletCount: 3, includedBullets: 3 });
    expect(body.context).not.toContain("str-00001");
  });

  /** What compileContext makes of the playbook's active rows as the database holds them now. */
  async function compiledFromRows(name: string, tokenBudget: number, includeCounters: boolean) {
    const rows = await suite.database.db.bullet.findMany({
      where: { playbook: { name }, status: "active" },
      orderBy: [{ section: { position: "asc" } }, { position: "asc" }, { externalId: "asc" }],
      select: BULLET_SELECT,
    });
    const sections: ContextSection[] = [];
    for (const { section, ...bullet } of rows) {
      if (sections.at(-1)?.name !== section.name) sections.push({ name: section.name, bullets: [] });
      sections.at(-1)?.bullets.push(bullet);
    }
    return compileContext(sections, { tokenBudget, includeCounters });
  }

  async function expectCompiledFromRows(name: string, budget: number, counters: boolean) {
    const expected = await compiledFromRows(name, budget, counters);
    const body = (await (await get(name, `budget=${budget}&counters=${counters}`)).json()) as ContextBody;
    const label = `budget ${budget}, counters ${counters}`;
    expect(body.context, label).toBe(expected.text);
    expect(body, label).toMatchObject({
      tokens: expected.tokens,
      includedBullets: expected.includedBullets.length,
      omittedBullets: expected.omittedBullets.length,
    });
    expect(countTokens(body.context), label).toBe(body.tokens);
    return body;
  }

  it("is what the compiler makes of the stored bullets, at any budget, with counters of every width", async () => {
    await suite.caller.playbook.import({ content: APPWORLD, target: { kind: "new", name: "appworld" } });
    // Counters of every width (up to 4 digits, which take two tokens), and token counts to be made again.
    await suite.database.db.$executeRaw`
      UPDATE "Bullet" SET helpful = abs(hashtext("externalId")) % 1500, harmful = abs(hashtext(content)) % 40,
        "countersKnown" = abs(hashtext("externalId")) % 5 > 0, "tokenCount" = -1
      WHERE "playbookId" IN (SELECT id FROM "Playbook" WHERE name = 'appworld')`;
    const first = (await (await get("appworld", "budget=2000")).json()) as ContextBody;
    expect(first.bulletCount).toBe(318);

    for (const counters of [true, false]) {
      const whole = await compiledFromRows("appworld", 10_000_000, counters);
      for (const budget of [0, 30, 200, 1_000, 5_000, 12_345, Math.floor(whole.tokens / 2), whole.tokens - 1, whole.tokens]) {
        await expectCompiledFromRows("appworld", budget, counters);
      }
    }
  });

  it("follows every change, made by this server or by another one, with exact token counts", async () => {
    // On PostgreSQL a second connection pool stands for another server process: its writes reach
    // this one only through the database. PGlite has one connection, so there it is this server.
    // (Opening it empties the database, so it comes first.)
    const other = engine === "postgres" ? await openTestDatabase(engine) : undefined;
    try {
      const { playbookId: appworldId } = await suite.caller.playbook.import({
        content: APPWORLD,
        target: { kind: "new", name: "appworld" },
      });
      const writer = callerAs(other?.db ?? suite.database.db, "admin", "other server");
      // This server's clock only moves forward: the other server's writes reach it once the head it
      // keeps has expired (server/context/heads.ts), and counter changes once they are published.
      let ahead = 0;
      setContextClock(() => Date.now() + ahead);
      const edit = async (reason: string, operations: Parameters<typeof writer.delta.edit>[0]["operations"]) => {
        await writer.delta.edit({ playbookId: appworldId, reason, operations });
        if (other) ahead += HEAD_TTL_MS;
      };
      const whole = await expectCompiledFromRows("appworld", 1_000_000, true);
      const half = Math.floor(whole.tokens / 2);
      await expectCompiledFromRows("appworld", half, true);

      const [lowest] = (await compiledFromRows("appworld", 1_000_000, true)).includedBullets.slice(-1);
      await edit("counters", [
        { type: "tag", bulletId: lowest as string, helpful: 1_234 },
        { type: "tag", bulletId: whole.context.match(/\[([a-z]+-\d+)\]/)?.[1] as string, harmful: 999 },
      ]);
      // Counter-only versions wait for the next publication (server/context/publication.ts): version 1
      // is served until ACE_CONTEXT_COUNTER_REFRESH_S (60 s) has passed, then version 2.
      expect((await get("appworld", `budget=${half}`)).headers.get("x-playbook-version")).toBe("1");
      ahead += 60_000;
      expect((await expectCompiledFromRows("appworld", half, true)).version).toBe(2);
      await expectCompiledFromRows("appworld", half, false);

      await edit("content", [
        { type: "update", bulletId: lowest as string, content: "Reread the task's constraints before the final answer." },
        { type: "add_section", name: "late lessons" },
        { type: "add", section: "late lessons", content: "Check the API docs for pagination limits first." },
      ]);
      await edit("removal", [{ type: "remove", bulletId: lowest as string, reason: "superseded" }]);
      const after = await expectCompiledFromRows("appworld", half, true);
      expect(after).toMatchObject({ version: 4, bulletCount: 318 });
      expect(after.context).not.toContain(`[${lowest}]`);
      await expectCompiledFromRows("appworld", 1_000_000, false);
    } finally {
      setContextClock(undefined);
      await other?.close();
    }
  });
});
