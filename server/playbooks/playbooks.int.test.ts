// The playbook procedures through createCaller, against embedded PGlite and PostgreSQL.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { classifyBullet, type BulletSignal } from "@/server/ace/signals";
import { testEngines } from "@/server/testing/db";
import { databaseSuite } from "@/server/testing/playbook-suite";
import { expectAppError } from "@/server/testing/fixtures";
import { forgetEngineStates, loadSnapshot } from "@/server/deltas/engine-state";
import { loadDocument, loadDocumentFromRows } from "./export";
import { requirePlaybook } from "./manage";
import { countBullets, listBullets as listBulletRows, listSections, type BulletListRow } from "./repository";
import { listBulletsInput, type ListBulletsInput } from "./schemas";
import { seedDemoPlaybooks } from "./seed";
import { pageFromState } from "./state-page";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const fixturesDir = PLAYBOOK_FIXTURES_DIR;
const fixture = (name: string) => readFileSync(path.join(fixturesDir, name), "utf8");
const APPWORLD_TRAINED = "ace-appworld__appworld_offline_trained_no_gt_playbook.txt";

/** A studio-JSON playbook whose bullets cover every signal and every sort order. */
function countersPlaybook(): string {
  const bullets = [
    ["str-00001", "Verify data types before processing", 8, 0, 1],
    ["str-00002", "Consider edge cases in financial data", 3, 1, 0],
    ["str-00003", "Risky approach that usually fails", 1, 5, 0],
    ["str-00004", "Untested idea with no votes", 0, 0, 2],
    ["mis-00005", "Don't forget timezone conversions", 6, 2, 0],
    ["mis-00006", "Equal votes count as problematic", 2, 2, 0],
    ["mis-00007", "Only harmful votes", 0, 1, 0],
  ] as const;
  const section = (name: string, slug: string) => ({
    name,
    slug,
    bullets: bullets
      .filter(([id]) => id.startsWith(slug))
      .map(([id, content, helpful, harmful, neutral]) => ({ id, content, counters: { helpful, harmful, neutral }, status: "active" })),
  });
  return JSON.stringify({
    format: "ace-studio",
    formatVersion: 1,
    playbook: { name: "counters", description: "", agentLabel: "", settings: {} },
    lastIdNumber: 7,
    hints: {},
    sections: [section("strategies_and_insights", "str"), section("common_mistakes_to_avoid", "mis")],
  });
}

describe.each(testEngines())("playbook procedures on %s", (engine) => {
  const suite = databaseSuite(engine, { as: ["admin", "tester"] });

  async function importText(content: string, name: string, format: "auto" | "ace" | "ace-plain" | "kayba" | "json" = "auto") {
    return suite.caller.playbook.import({ content, format, target: { kind: "new", name } });
  }

  it("creating a playbook gives it the ACE default sections at version 1", async () => {
    const created = await suite.caller.playbook.create({ name: "support agent", agentLabel: "support" });
    const detail = await suite.caller.playbook.get({ playbookId: created.id });
    expect(detail.version).toBe(1);
    expect(detail.sections.map((s) => `${s.name}/${s.slug}`)).toEqual([
      "strategies_and_insights/str",
      "formulas_and_calculations/cal",
      "code_snippets_and_templates/cod",
      "common_mistakes_to_avoid/mis",
      "problem_solving_heuristics/heu",
      "context_clues_and_indicators/ctx",
      "others/oth",
    ]);
    await expectAppError(suite.caller.playbook.create({ name: "support agent" }), "CONFLICT", /already exists/);
  });

  it("importing the 318-bullet AppWorld playbook keeps 8 sections in order and exports the same bytes", async () => {
    const text = fixture(APPWORLD_TRAINED);
    const result = await importText(text, "appworld");
    expect(result).toMatchObject({ format: "ace-plain", bulletCount: 318, sectionCount: 8, version: 1 });
    const detail = await suite.caller.playbook.get({ playbookId: result.playbookId });
    expect(detail.sections.map((s) => s.name)).toEqual([
      "STRATEGIES AND HARD RULES",
      "APIs TO USE FOR SPECIFIC INFORMATION",
      "USEFUL CODE SNIPPETS AND TEMPLATES",
      "COMMON MISTAKES AND CORRECT STRATEGIES",
      "PROBLEM-SOLVING HEURISTICS AND WORKFLOWS",
      "VERIFICATION CHECKLIST",
      "TROUBLESHOOTING AND PITFALLS:",
      "OTHERS",
    ]);
    expect(detail.summary.signals.untracked).toBe(318);
    expect(detail.summary.estimatedTokens).toBeGreaterThan(10_000);
    const exported = await suite.caller.playbook.export({ playbookId: result.playbookId });
    expect(exported.format).toBe("ace-plain");
    expect(exported.content).toBe(text);
  });

  it("every published fixture round-trips through import and export in its own format", async () => {
    const files = readdirSync(fixturesDir).filter((file) => /\.(txt|json)$/.test(file) && !file.endsWith(".peer.json"));
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) {
      const text = fixture(file);
      const imported = await suite.caller.playbook.import({ content: text, fileName: file, target: { kind: "new", name: file } });
      const exported = await suite.caller.playbook.export({ playbookId: imported.playbookId });
      expect(exported.content, file).toBe(text);
    }
  });

  it("an export built on the cached state is the one read from the rows, also for a row read before a write", async () => {
    const files = readdirSync(fixturesDir).filter((file) => /\.(txt|json)$/.test(file) && !file.endsWith(".peer.json"));
    for (const file of files) {
      const { playbookId } = await suite.caller.playbook.import({
        content: fixture(file),
        fileName: file,
        target: { kind: "new", name: file },
      });
      const { db } = suite.database;
      const before = await requirePlaybook(db, playbookId);
      const first = (await loadDocumentFromRows(db, before)).sections.flatMap((section) => section.bullets)[0]!;
      await suite.caller.delta.edit({
        playbookId,
        reason: "Retire one",
        operations: [{ type: "remove", bulletId: first.id, reason: "Superseded" }],
      });
      const after = await requirePlaybook(db, playbookId);
      expect(await loadDocument(db, after), file).toEqual(await loadDocumentFromRows(db, after));
      // The cached state is a version ahead of this row: the rows are read.
      expect(await loadDocument(db, before), file).toEqual(await loadDocumentFromRows(db, before));
    }
  });

  it("an export built on the cached state writes every timestamp as the rows do: whole seconds, cut fractions, years past 9999", async () => {
    const { playbookId } = await importText(countersPlaybook(), "timestamps");
    const { db } = suite.database;
    const setTimes = (pairs: [string, string][]) =>
      Promise.all(
        pairs.map(
          ([externalId, at]) =>
            db.$executeRaw`UPDATE "Bullet" SET "createdAt" = ${at}::timestamp(3), "updatedAt" = ${at}::timestamp(3) + interval '0.05 seconds'
            WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = ${externalId}`,
        ),
      );
    await setTimes([
      ["str-00001", "2026-01-01 10:00:00"],
      ["str-00002", "2026-01-01 10:00:00.1"],
      ["str-00003", "2026-01-01 10:00:00.12"],
      ["str-00004", "0999-12-31 23:59:59.999"],
    ]);
    // A content changed behind the app's back (every write of the app moves the version) shows which
    // path ran: the state cached by the first export still has the imported text.
    await loadDocument(db, await requirePlaybook(db, playbookId));
    await db.$executeRaw`UPDATE "Bullet" SET content = 'changed outside' WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'mis-00007'`;
    const playbook = await requirePlaybook(db, playbookId);
    const fromState = await loadDocument(db, playbook);
    const fromRows = await loadDocumentFromRows(db, playbook);
    expect(fromState.sections[1]!.bullets.at(-1)!.content).toBe("Only harmful votes");
    expect(fromRows.sections[1]!.bullets.at(-1)!.content).toBe("changed outside");
    fromRows.sections[1]!.bullets.at(-1)!.content = "Only harmful votes";
    expect(fromState).toEqual(fromRows);
    expect(fromState.sections[0]!.bullets.map((bullet) => [bullet.createdAt, bullet.updatedAt])).toEqual([
      ["2026-01-01T10:00:00.000Z", "2026-01-01T10:00:00.050Z"],
      ["2026-01-01T10:00:00.100Z", "2026-01-01T10:00:00.150Z"],
      ["2026-01-01T10:00:00.120Z", "2026-01-01T10:00:00.170Z"],
      ["0999-12-31T23:59:59.999Z", "1000-01-01T00:00:00.049Z"],
    ]);
    // A year json writes with five digits: the rows' own reading, whatever it writes. Written behind
    // the app's back, as above, so the cached state and extras are dropped first.
    await setTimes([["mis-00005", "12026-01-01 10:00:00"]]);
    forgetEngineStates(db);
    expect(await loadDocument(db, playbook)).toEqual(await loadDocumentFromRows(db, playbook));
  });

  it("an export after a change reads again only the changed bullets' extras: the rows' for them, the kept ones for the rest", async () => {
    const { playbookId } = await importText(countersPlaybook(), "extras kept");
    const { db } = suite.database;
    // The first export reads and keeps every bullet's extras.
    await loadDocument(db, await requirePlaybook(db, playbookId));
    // Written behind the app's back (every write of the app records the bullets it writes), so the
    // next export shows which rows it read again.
    await db.$executeRaw`UPDATE "Bullet" SET justification = 'set outside' WHERE "playbookId" = ${playbookId}::uuid`;
    await suite.caller.delta.edit({
      playbookId,
      reason: "Reword one, add one",
      operations: [
        { type: "update", bulletId: "str-00002", content: "Consider edge cases and empty values in financial data" },
        { type: "add", section: "common_mistakes_to_avoid", content: "Do not round currency before summing" },
      ],
    });
    const playbook = await requirePlaybook(db, playbookId);
    const fromState = await loadDocument(db, playbook);
    const fromRows = await loadDocumentFromRows(db, playbook);
    const bulletsOf = (document: typeof fromRows) => document.sections.flatMap((section) => section.bullets);
    expect(
      bulletsOf(fromState)
        .filter((bullet) => bullet.justification === "set outside")
        .map((bullet) => bullet.id),
    ).toEqual(["str-00002"]);
    for (const bullet of bulletsOf(fromRows))
      if (bullet.id !== "str-00002" && bullet.justification === "set outside") delete bullet.justification;
    // The rest as the rows have them, the new bullet and the reworded one's update time included.
    expect(fromState).toEqual(fromRows);
  });

  it("a page in reading order read section by section is the top of every row: ties, both directions, every filter", async () => {
    const { playbookId } = await importText(countersPlaybook(), "reading order");
    const { db } = suite.database;
    // Ties the section-by-section read must merge: both sections at one position, bullets sharing
    // positions across and within sections, and an archived bullet.
    await db.$executeRaw`UPDATE "Section" SET position = 4 WHERE "playbookId" = ${playbookId}::uuid`;
    await db.$executeRaw`UPDATE "Bullet" SET position = position % 2 WHERE "playbookId" = ${playbookId}::uuid`;
    await db.$executeRaw`UPDATE "Bullet" SET status = 'archived' WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'str-00002'`;
    const sections = await listSections(db, playbookId);
    const filters = [{}, { sectionIds: [sections[1]!.id] }, { signals: ["problematic" as const] }, { search: "o" }];
    let compared = 0;
    for (const order of ["asc", "desc"] as const)
      for (const status of ["active", "archived", "all"] as const)
        for (const filter of filters)
          for (const [limit, cursor] of [
            [1, 0],
            [3, 2],
            [50, 0],
            [2, 5],
            [4, 7],
          ] as const) {
            const query = listBulletsInput.parse({ playbookId, sort: "position", order, status, limit, cursor, ...filter });
            const bySection = await listBulletRows(db, query, { count: false });
            const fromTop = await listBulletRows(db, query, { count: true });
            expect(bySection.rows, JSON.stringify({ order, status, filter, limit, cursor })).toEqual(fromTop.rows);
            compared += bySection.rows.length;
          }
    expect(compared).toBeGreaterThan(100);
  });

  it("a page sorted by a counter or the update time is its slice of the whole order: ties, both directions, every page", async () => {
    const { playbookId } = await importText(countersPlaybook(), "counter order");
    const { db } = suite.database;
    // Few distinct values, so the rows that tie on the sort's first key reach across pages, and
    // both sections at one position with bullets sharing positions: every tie-breaker decides.
    await db.$executeRaw`UPDATE "Section" SET position = 4 WHERE "playbookId" = ${playbookId}::uuid`;
    await db.$executeRaw`UPDATE "Bullet" SET position = position % 2, helpful = length(content) % 3, harmful = length(content) % 2,
      "updatedAt" = TIMESTAMP '2026-01-01' + (length(content) % 2) * INTERVAL '1 second' WHERE "playbookId" = ${playbookId}::uuid`;
    const sections = new Map((await listSections(db, playbookId)).map((section) => [section.id, section.position]));
    const positions = new Map(
      (await db.bullet.findMany({ where: { playbookId }, select: { externalId: true, position: true } })).map((b) => [
        b.externalId,
        b.position,
      ]),
    );
    const all = await listBulletRows(db, listBulletsInput.parse({ playbookId, sort: "position", limit: 500 }), { count: false });
    expect(all.rows).toHaveLength(7);
    const keys: [ListBulletsInput["sort"], (bullet: BulletListRow) => number][] = [
      ["helpful", (b) => b.helpful],
      ["harmful", (b) => b.harmful],
      ["score", (b) => b.helpful - b.harmful],
      ["recent", (b) => b.updatedAt.getTime()],
    ];
    let compared = 0;
    for (const [sort, key] of keys)
      for (const order of ["asc", "desc"] as const) {
        const sign = order === "asc" ? 1 : -1;
        const whole = [...all.rows].sort(
          (a, b) =>
            sign * (key(a) - key(b)) ||
            sections.get(a.sectionId)! - sections.get(b.sectionId)! ||
            positions.get(a.externalId)! - positions.get(b.externalId)! ||
            (a.externalId < b.externalId ? -1 : 1),
        );
        for (const [limit, cursor] of [
          [1, 0],
          [2, 1],
          [3, 2],
          [2, 5],
          [7, 0],
          [4, 6],
        ] as const) {
          const page = await listBulletRows(db, listBulletsInput.parse({ playbookId, sort, order, limit, cursor }), { count: true });
          const label = JSON.stringify({ sort, order, limit, cursor });
          expect(
            page.rows.map((b) => b.externalId),
            label,
          ).toEqual(whole.slice(cursor, cursor + limit).map((b) => b.externalId));
          expect(page.total, label).toBe(7);
          compared += page.rows.length;
        }
      }
    expect(compared).toBeGreaterThan(100);
  });

  it("a page from the cached state is the SQL list's page: every sort it serves, both directions, every filter, every page", async () => {
    const { playbookId } = await importText(countersPlaybook(), "state order");
    const { db } = suite.database;
    // The ties of the two tests above, and an archived bullet; written behind the engine's back, so
    // its states are dropped and the state loaded again from these rows.
    await db.$executeRaw`UPDATE "Section" SET position = 4 WHERE "playbookId" = ${playbookId}::uuid`;
    await db.$executeRaw`UPDATE "Bullet" SET position = position % 2, helpful = length(content) % 3, harmful = length(content) % 2
      WHERE "playbookId" = ${playbookId}::uuid`;
    await db.$executeRaw`UPDATE "Bullet" SET status = 'archived' WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'str-00002'`;
    forgetEngineStates(db);
    const notCached = listBulletsInput.parse({ playbookId, sort: "score" });
    expect(await pageFromState(db, notCached)).toBeNull();
    await loadSnapshot(db, playbookId);

    const sections = await listSections(db, playbookId);
    const filters = [
      {},
      { sectionIds: [sections[1]!.id] },
      { signals: ["problematic" as const, "unused" as const] },
      // Content in any case, an id with its bracket, and characters LIKE and regular expressions treat specially.
      { search: "O" },
      { search: "[MIS-0000", sectionIds: [sections[1]!.id] },
      { search: "." },
      { search: "edge cases" },
    ];
    let compared = 0;
    for (const sort of ["position", "id", "helpful", "harmful", "score"] as const)
      for (const order of ["asc", "desc"] as const)
        for (const status of ["active", "archived", "all"] as const)
          for (const filter of filters)
            for (const [limit, cursor] of [
              [1, 0],
              [2, 1],
              [3, 2],
              [7, 0],
              [4, 6],
            ] as const) {
              const query = listBulletsInput.parse({ playbookId, sort, order, status, limit, cursor, ...filter });
              const label = JSON.stringify({ sort, order, status, filter, limit, cursor });
              const page = await pageFromState(db, query);
              const sql = await listBulletRows(db, query, { count: false });
              const total = await countBullets(db, query);
              expect(page, label).not.toBeNull();
              expect(
                page!.items.map(({ signal: _signal, ...row }) => row),
                label,
              ).toEqual(sql.rows);
              expect(page!.total, label).toBe(total);
              expect(page!.nextCursor, label).toBe(cursor + sql.rows.length < total ? cursor + sql.rows.length : null);
              compared += sql.rows.length;
            }
    expect(compared).toBeGreaterThan(500);

    // What the state cannot give goes to SQL: the update time, a search outside ASCII, any search in a
    // playbook whose text the database may lower into ASCII, and a version it does not hold.
    expect(await pageFromState(db, listBulletsInput.parse({ playbookId, sort: "recent" }))).toBeNull();
    expect(await pageFromState(db, listBulletsInput.parse({ playbookId, search: "é" }))).toBeNull();
    await db.$executeRaw`UPDATE "Bullet" SET content = 'Convert Kelvin to Celsius' WHERE "playbookId" = ${playbookId}::uuid
      AND "externalId" = 'str-00004'`;
    forgetEngineStates(db);
    await loadSnapshot(db, playbookId);
    expect(await pageFromState(db, listBulletsInput.parse({ playbookId, search: "kelvin" }))).toBeNull();
    expect(await pageFromState(db, listBulletsInput.parse({ playbookId, sort: "score" }))).not.toBeNull();
    await db.$executeRaw`UPDATE "Playbook" SET version = version + 1 WHERE id = ${playbookId}::uuid`;
    expect(await pageFromState(db, notCached)).toBeNull();
  });

  it("a page sorted from the cached state follows every write", async () => {
    const { playbookId } = await importText(countersPlaybook(), "state follows");
    const top = async () => (await suite.caller.playbook.bullets({ playbookId, sort: "score", limit: 2 })).items.map((b) => b.externalId);
    await loadSnapshot(suite.database.db, playbookId);
    expect(await top()).toEqual(["str-00001", "mis-00005"]);
    await suite.caller.delta.edit({
      playbookId,
      reason: "Votes",
      operations: [{ type: "tag", bulletId: "str-00004", helpful: 9, harmful: 0 }],
    });
    expect(await top()).toEqual(["str-00004", "str-00001"]);
    await suite.caller.delta.edit({ playbookId, reason: "Gone", operations: [{ type: "remove", bulletId: "str-00004", reason: "Stale" }] });
    expect(await top()).toEqual(["str-00001", "mis-00005"]);
  });

  it("a search matches a bullet's text as it is now, in any case: the lowered copy follows every change", async () => {
    const { playbookId } = await importText(countersPlaybook(), "search copy");
    const { db } = suite.database;
    // The SQL list: the write below goes behind the engine's back (no new version), which the cached state would not see.
    const found = async (search: string) =>
      (await listBulletRows(db, listBulletsInput.parse({ playbookId, search }), { count: false })).rows.map((b) => b.externalId);
    expect(await found("RISKY approach")).toEqual(["str-00003"]);
    await db.$executeRaw`UPDATE "Bullet" SET content = 'Check the PAGINATION cursor' WHERE "playbookId" = ${playbookId}::uuid
      AND "externalId" = 'str-00003'`;
    expect(await found("risky")).toEqual([]);
    expect(await found("pagination CURSOR")).toEqual(["str-00003"]);
    const [row] = await db.$queryRaw<{ searchText: string }[]>`
      SELECT "searchText" FROM "Bullet" WHERE "playbookId" = ${playbookId}::uuid AND "externalId" = 'str-00003'`;
    expect(row?.searchText).toBe("check the pagination cursor");
  });

  it("a page's rows carry each bullet's fields as stored, its update time to the millisecond, by SQL or from the state", async () => {
    const { playbookId } = await importText(countersPlaybook(), "page rows");
    const { db } = suite.database;
    await db.$executeRaw`UPDATE "Bullet" SET "updatedAt" = '2026-01-02 03:04:05.678'::timestamp(3) WHERE "playbookId" = ${playbookId}::uuid`;
    const stored = new Map((await db.bullet.findMany({ where: { playbookId } })).map((row) => [row.id, row]));
    const query = listBulletsInput.parse({ playbookId, status: "all", limit: 50 });
    await loadSnapshot(db, playbookId);
    const fromState = await pageFromState(db, query);
    expect(fromState).not.toBeNull();
    const bySql = await listBulletRows(db, query, { count: false });
    for (const items of [fromState!.items.map(({ signal: _signal, ...item }) => item), bySql.rows]) {
      for (const item of items) {
        const row = stored.get(item.id);
        expect(row, item.externalId).toBeDefined();
        expect(item).toEqual(Object.fromEntries(Object.keys(item).map((key) => [key, row?.[key as keyof typeof row]])));
        expect(Object.keys(item).sort().join()).toBe(
          "content,countersKnown,externalId,harmful,helpful,id,neutral,pinned,sectionId,status,updatedAt",
        );
        expect(item.updatedAt).toEqual(new Date("2026-01-02T03:04:05.678Z"));
      }
      expect(items).toHaveLength(stored.size);
    }
  });

  it("an import says what it read the way the peers read it: counters spaced with tabs come in as counters, with a note", async () => {
    const text = "## STRATEGIES & INSIGHTS\n[sai-00001] helpful=3\tharmful=1\t::\ttabs\n[sai-00002] helpful=1 harmful=0 :: plain\n";
    const imported = await importText(text, "tabbed", "ace");
    expect(imported.bulletCount).toBe(2);
    expect(imported.warnings.length).toBeGreaterThan(0);
    expect(imported.warnings.join("\n")).toMatch(/sai-00001|line 2/i);
    const clean = await importText("## S\n[s-00001] helpful=1 harmful=0 :: plain\n", "clean", "ace");
    expect(clean.warnings).toEqual([]);
  });

  it("a malformed file is rejected with the line and the problem, and nothing is written", async () => {
    const broken = "## strategies\n[str-00001] helpful=1 harmful=0 :: fine\n[str-00002] helpful=x harmful=0 :: broken\n";
    await expectAppError(importText(broken, "broken", "ace"), "BAD_REQUEST", /Line 3/);
    expect(await suite.caller.playbook.list()).toEqual([]);
  });

  it("bullets are found by text and by id, filtered by section and signal, and sorted by score", async () => {
    const { playbookId } = await importText(countersPlaybook(), "counters");
    const detail = await suite.caller.playbook.get({ playbookId });
    const bySignal = detail.summary.signals;
    expect(bySignal).toEqual({ high_performing: 1, problematic: 3, unused: 1, in_use: 2, untracked: 0 });

    const byText = await suite.caller.playbook.bullets({ playbookId, search: "TIMEZONE" });
    expect(byText.items.map((b) => b.externalId)).toEqual(["mis-00005"]);
    const byId = await suite.caller.playbook.bullets({ playbookId, search: "[str-00003]" });
    expect(byId.items.map((b) => b.externalId)).toEqual(["str-00003"]);
    const wildcard = await suite.caller.playbook.bullets({ playbookId, search: "100%_" });
    expect(wildcard.total).toBe(0);

    const mistakes = detail.sections.find((s) => s.slug === "mis");
    const inSection = await suite.caller.playbook.bullets({ playbookId, sectionIds: [mistakes?.id ?? ""] });
    expect(inSection.items.map((b) => b.externalId)).toEqual(["mis-00005", "mis-00006", "mis-00007"]);

    const byScore = await suite.caller.playbook.bullets({ playbookId, sort: "score" });
    expect(byScore.items.map((b) => b.helpful - b.harmful)).toEqual([8, 4, 2, 0, 0, -1, -4]);
    const problematic = await suite.caller.playbook.bullets({ playbookId, signals: ["problematic"] });
    expect(problematic.items.map((b) => b.externalId).sort()).toEqual(["mis-00006", "mis-00007", "str-00003"]);
  });

  it("the SQL signal filter agrees with classifyBullet for every bullet", async () => {
    const { playbookId } = await importText(countersPlaybook(), "counters");
    const all = await suite.caller.playbook.bullets({ playbookId, limit: 500 });
    for (const signal of ["high_performing", "problematic", "unused", "in_use", "untracked"] as BulletSignal[]) {
      const filtered = await suite.caller.playbook.bullets({ playbookId, signals: [signal], limit: 500 });
      const expected = all.items.filter((bullet) => classifyBullet(bullet) === signal).map((b) => b.externalId);
      expect(filtered.items.map((b) => b.externalId).sort(), signal).toEqual(expected.sort());
      expect(filtered.items.every((bullet) => bullet.signal === signal)).toBe(true);
    }
  });

  it("a page's total is what the filter matches, whether the version's tally or the query counts it", async () => {
    const { playbookId } = await importText(countersPlaybook(), "counters");
    await suite.caller.delta.edit({
      playbookId,
      reason: "Archive one",
      operations: [{ type: "remove", bulletId: "str-00003", reason: "Risky" }],
    });
    const detail = await suite.caller.playbook.get({ playbookId }); // the page opens with this: it tallies the version
    const [str, mis] = detail.sections.map((section) => section.id);
    const combinations = [];
    for (const status of ["active", "archived", "all"] as const)
      for (const signals of [undefined, ["problematic"], ["problematic", "unused"], ["unused", "unused"]] as BulletSignal[][])
        for (const sectionIds of [undefined, [mis!], [str!, mis!]])
          for (const search of [undefined, "a"])
            for (const cursor of [0, 2, 9]) combinations.push({ playbookId, status, signals, sectionIds, search, cursor, limit: 2 });
    for (const input of combinations) {
      const page = await suite.caller.playbook.bullets(input);
      const counted = await countBullets(suite.database.db, listBulletsInput.parse(input));
      expect(page.total, JSON.stringify(input)).toBe(counted);
      expect(page.items.length, JSON.stringify(input)).toBe(Math.max(0, Math.min(2, counted - input.cursor)));
    }
  });

  it("paging through a playbook returns every bullet exactly once", async () => {
    const { playbookId } = await importText(fixture(APPWORLD_TRAINED), "appworld");
    const seen: string[] = [];
    let cursor: number | null = 0;
    while (cursor !== null) {
      const page: Awaited<ReturnType<typeof suite.caller.playbook.bullets>> = await suite.caller.playbook.bullets({
        playbookId,
        cursor,
        limit: 50,
      });
      expect(page.total).toBe(318);
      seen.push(...page.items.map((b) => b.externalId));
      cursor = page.nextCursor;
    }
    expect(new Set(seen).size).toBe(318);
    expect(seen[0]).toBe("shr-00001");
    // Reading order is the file's order: sections by position, then bullets by position.
    const exported = await suite.caller.playbook.export({ playbookId });
    expect(seen).toEqual([...exported.content.matchAll(/^\[([^\]]+)\]/gm)].map((match) => match[1]));
    const past = await suite.caller.playbook.bullets({ playbookId, cursor: 400 });
    expect(past).toEqual({ items: [], total: 318, nextCursor: null });
  });

  it("a bullet's detail shows its section, counters and provenance", async () => {
    const { playbookId } = await importText(fixture("kayba__skillbook_20260318_150822.json"), "kayba");
    const bullet = await suite.caller.playbook.bullet({ playbookId, externalId: "customer_service_opening-00002" });
    expect(bullet).toMatchObject({
      sectionName: "customer_service_opening",
      helpful: 1,
      harmful: 0,
      countersKnown: true,
      origin: "import",
      status: "active",
    });
    expect(bullet.justification).toMatch(/Measurable threshold/);
    expect(bullet.evidence).toMatch(/70 char opening/);
    await expectAppError(suite.caller.playbook.bullet({ playbookId, externalId: "nope-00001" }), "NOT_FOUND", /nope-00001/);
  });

  it("merging a file adds new ids and updates known ones as a new version; replace archives the rest", async () => {
    const initial = fixture("ace-appworld__appworld_initial_playbook.txt");
    const { playbookId } = await importText(initial, "appworld");
    const edited = `${initial
      .replace("[shr-00001] Make sure", "[shr-00001] Always make sure")
      .replace(/\[psw-00007\][^\n]*\n/, "")}[misc-00009] A new lesson.\n`;
    expect((await suite.caller.playbook.get({ playbookId })).summary).toMatchObject({ active: 8, archived: 0 });
    const merged = await suite.caller.playbook.import({ content: edited, target: { kind: "existing", playbookId, mode: "merge" } });
    expect(merged).toMatchObject({ version: 2, bulletCount: 9 });
    // The summary is kept per version: a new version is counted again.
    expect((await suite.caller.playbook.get({ playbookId })).summary).toMatchObject({ active: 9, archived: 0 });
    const updated = await suite.caller.playbook.bullet({ playbookId, externalId: "shr-00001" });
    expect(updated.content).toMatch(/^Always make sure/);
    expect((await suite.caller.playbook.bullet({ playbookId, externalId: "psw-00007" })).status).toBe("active");

    const replaced = await suite.caller.playbook.import({ content: edited, target: { kind: "existing", playbookId, mode: "replace" } });
    expect(replaced).toMatchObject({ version: 3, bulletCount: 8 });
    expect((await suite.caller.playbook.get({ playbookId })).summary).toMatchObject({ active: 8, archived: 1 });
    expect((await suite.caller.playbook.bullet({ playbookId, externalId: "psw-00007" })).status).toBe("archived");
    const again = await suite.caller.playbook.import({ content: edited, target: { kind: "existing", playbookId, mode: "replace" } });
    expect(again.version).toBe(3);
    const exported = await suite.caller.playbook.export({ playbookId });
    expect(exported.content).toBe(edited);
  });

  it("an unknown playbook is reported as not found", async () => {
    const missing = "00000000-0000-4000-8000-000000000000";
    await expectAppError(suite.caller.playbook.get({ playbookId: missing }), "NOT_FOUND", /playbook was not found/);
    await expectAppError(suite.caller.playbook.bullets({ playbookId: missing }), "NOT_FOUND", /playbook was not found/);
    await expectAppError(
      suite.caller.playbook.import({ content: "## a\n[a-00001] x\n", target: { kind: "existing", playbookId: missing, mode: "merge" } }),
      "NOT_FOUND",
      /playbook was not found/,
    );
  });

  it("first-run seeding imports the demo playbooks once and never over existing data", async () => {
    const seeded = await seedDemoPlaybooks(suite.database.db, path.join(repoRoot, "prisma", "seed"));
    expect(seeded).toEqual(["Customer service (demo)", "AppWorld initial (demo)"]);
    expect(await seedDemoPlaybooks(suite.database.db, path.join(repoRoot, "prisma", "seed"))).toEqual([]);
    const list = await suite.caller.playbook.list();
    expect(list.map((p) => [p.name, p.bulletCount]).sort()).toEqual([
      ["AppWorld initial (demo)", 8],
      ["Customer service (demo)", 6],
    ]);
  });
});
