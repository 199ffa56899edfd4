// `npm run ace` as a user runs it: a child process on a real embedded database folder.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { contextFor } from "@/server/trpc/init";
import { runCli, serveTrpcToCli } from "@/server/testing/cli";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";
import { ingestTraces } from "@/server/traces/service";

const fixturesDir = PLAYBOOK_FIXTURES_DIR;
const fixturePath = (name: string) => path.join(fixturesDir, name);

/** An ACE playbook with counters, as the LangChain ACE middleware writes it. */
const WITH_COUNTERS = `## strategies_and_insights
[str-00001] helpful=5 harmful=0 :: Always verify data types before processing
[str-00002] helpful=3 harmful=1 :: Consider edge cases in financial data: "NaN", [brackets] and a :: separator

## formulas_and_calculations
[cal-00001] helpful=8 harmful=0 :: NPV = Σ(Cash Flow / (1+r)^t)

## common_mistakes_to_avoid
[mis-00001] helpful=6 harmful=0 :: Don't forget timezone conversions — 東京 is UTC+9
`;

// Each command is a new process (tsx start-up, database open, migration check): seconds each on a
// busy machine, so these tests get minutes rather than the default minute.
describe("the ace CLI on an embedded database", { timeout: 300_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), "ace-cli-"));
    env = { DATA_DIR: dataDir };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("imports each published playbook and exports it back byte for byte", async () => {
    const files = [
      "ace-appworld__appworld_offline_trained_no_gt_playbook.txt",
      "ace-appworld__appworld_initial_playbook.txt",
      "kayba__skillbook_20260318_150822.json",
      // Written by the peers' own code: bullets before any header; kayba with an embedding, an id
      // "42" and skills in their own order (stored as jsonb, which reorders keys); kayba 0.5 bullets.
      "generated/ace-agent__curator_into_empty.txt",
      "generated/kayba-head__skillbook.json",
      "generated/kayba-v0.5.0__playbook.json",
    ];
    for (const file of files) {
      const name = path.basename(file);
      const imported = await runCli(["import", fixturePath(file), "--playbook", name], env);
      expect(imported.stderr, file).toMatch(/Imported/);
      expect(imported.code, imported.stderr).toBe(0);
      const exported = await runCli(["export", name], env);
      expect(exported.code, exported.stderr).toBe(0);
      expect(exported.stdout, file).toBe(readFileSync(fixturePath(file), "utf8"));
    }
    const listed = await runCli(["list"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ace-appworld__appworld_offline_trained_no_gt_playbook\.txt\s+318\s+8\s+ace-plain/);
  });

  it("keeps counters, separators and unicode of ACE text with counters, and writes --out files", async () => {
    const source = path.join(dataDir, "middleware.txt");
    const out = path.join(dataDir, "middleware.out.txt");
    await import("node:fs/promises").then((fs) => fs.writeFile(source, WITH_COUNTERS));
    const imported = await runCli(["import", source], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/"middleware".*4 bullets in 3 sections/);
    const exported = await runCli(["export", "middleware", "--out", out], env);
    expect(exported.code, exported.stderr).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(WITH_COUNTERS);
    const asKayba = await runCli(["export", "middleware", "--format", "kayba"], env);
    expect(JSON.parse(asKayba.stdout).skills["str-00002"]).toMatchObject({ helpful: 3, harmful: 1 });
  });

  it("refuses a malformed file with the line and the problem, and writes nothing", async () => {
    const source = path.join(dataDir, "broken.txt");
    await import("node:fs/promises").then((fs) =>
      fs.writeFile(source, "## strategies\n[str-00001] helpful=1 harmful=0 :: fine\n[str-00002] helpful=-1 harmful=0 :: bad\n"),
    );
    const result = await runCli(["import", source, "--format", "ace"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/broken\.txt: Line 3/);
    expect(result.stderr).toMatch(/Nothing was imported/);
    expect((await runCli(["list"], env)).stdout).not.toMatch(/^broken/m);
  });

  it("says a refusal in one message, without a stack trace unless --debug asks for it", async () => {
    const source = path.join(dataDir, "refused.txt");
    await writeFile(source, "## strategies\n[str-00001] helpful=two harmful=0 :: bad\n");
    const plain = await runCli(["import", source, "--format", "ace"], env);
    expect(plain.code).toBe(1);
    expect(plain.stderr.trim()).toBe(
      `refused.txt: Line 2: helpful of [str-00001]: expected a whole number ≥ 0, found "two". Nothing was imported.`,
    );
    const debug = await runCli(["import", source, "--format", "ace", "--debug"], env);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^refused\.txt: Line 2/);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it("refuses an empty file in one line, not as a list of validation issues", async () => {
    const source = path.join(dataDir, "empty.txt");
    await writeFile(source, "");
    const result = await runCli(["import", source], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("The file is empty.");
  });

  it("imports a kayba skillbook with ids and sections text cannot hold, and refuses only a text export, naming them", async () => {
    const file = fixturePath("generated/kayba-head__odd_ids_and_sections.json");
    const imported = await runCli(["import", file, "--playbook", "odd"], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/4 bullets in 3 sections/);
    const asText = await runCli(["export", "odd", "--format", "ace"], env);
    expect(asText.code).toBe(1);
    expect(asText.stderr.trim()).toBe(
      `Cannot write this playbook as ACE text: bullet id "a]b" cannot stand inside "[ ]" (empty, or with "]" or a line break); ` +
        `section names "" and "multi\\nline" cannot be a "## <name>" header (empty, or with a line break; only the first section may be unnamed). ` +
        `Export it as kayba or ACE Studio JSON, which keep them.`,
    );
    const same = await runCli(["export", "odd"], env);
    expect(same.stdout).toBe(readFileSync(file, "utf8"));
  });

  it("exports the kayba flavour a kayba version reads", async () => {
    const older = await runCli(["export", "middleware", "--format", "kayba", "--kayba", "bullets"], env);
    expect(older.code, older.stderr).toBe(0);
    const bullets = JSON.parse(older.stdout);
    expect(Object.keys(bullets)).toEqual(["bullets", "sections", "next_id"]);
    expect(Object.keys(bullets.bullets["str-00002"])).toEqual([
      "id",
      "section",
      "content",
      "helpful",
      "harmful",
      "neutral",
      "created_at",
      "updated_at",
    ]);
    const current = JSON.parse((await runCli(["export", "middleware", "--kayba", "skills"], env)).stdout);
    expect(current.skills["str-00002"].helpful).toBeUndefined();
    const unknown = await runCli(["export", "middleware", "--kayba", "0.4"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(`Unknown kayba flavour "0.4". Use one of: skills, skills-counters, bullets.`);
  });

  it("explains usage errors and name clashes in words a person can act on", async () => {
    const clash = await runCli(["import", fixturePath("ace-appworld__appworld_initial_playbook.txt"), "--playbook", "middleware"], env);
    expect(clash.code).toBe(1);
    expect(clash.stderr).toMatch(/already exists\. Add --merge, --replace or --propose/);
    const missing = await runCli(["export", "no such playbook"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/There is no playbook named "no such playbook"/);
    const badFormat = await runCli(["export", "middleware", "--format", "yaml"], env);
    expect(badFormat.stderr).toMatch(/Unknown format "yaml"\. Use one of: ace, ace-plain, kayba, json/);
    const noFile = await runCli(["import", path.join(dataDir, "nope.txt")], env);
    expect(noFile.stderr).toMatch(/Cannot read .*nope\.txt: no such file/);
  });

  it("exports a unit's traces as JSON Lines and deletes them only when told --yes, with the export first", async () => {
    const source = path.join(dataDir, "requests.txt");
    await writeFile(source, WITH_COUNTERS);
    expect((await runCli(["import", source, "--playbook", "requests"], env)).code).toBe(0);
    const handle = await openDatabase({ kind: "pglite", dataDir });
    try {
      const trace = (externalId: string, unitId: string) => ({ playbook: "requests", externalId, task: `Task ${externalId}`, unitId });
      await ingestTraces(handle.db, [trace("a", "jane@example.com"), trace("b", "jane@example.com"), trace("c", "user-7")], {
        source: "cli",
      });
    } finally {
      await handle.close();
    }

    const shown = await runCli(["traces", "export", "requests", "--unit-id", "user-7"], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(
      shown.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).externalId),
    ).toEqual(["c"]);

    const dry = await runCli(["traces", "delete", "requests", "--unit-id", "jane@example.com"], env);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toMatch(
      /This would delete 2 trace\(s\) and 0 experiment exposure\(s\) of "requests"\. Nothing was deleted: add --yes/,
    );

    const copy = path.join(dataDir, "jane.jsonl");
    const done = await runCli(["traces", "delete", "requests", "--unit-id", "jane@example.com", "--export", copy, "--yes"], env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(
      /Exported 2 record\(s\) to .*jane\.jsonl\.\nDeleted 2 trace\(s\) and 0 experiment exposure\(s\) of "requests"; emptied 2 run\(s\) and rewrote 0 delta\(s\) that quoted them\./,
    );
    const records = readFileSync(copy, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { externalId: string; unitId: string });
    expect(records.map((record) => record.externalId)).toEqual(["a", "b"]);
    expect(records.every((record) => record.unitId.startsWith("hmac:"))).toBe(true);

    const bare = await runCli(["traces", "delete", "requests", "--yes"], env);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/Name the traces: a unitId, an externalId or a time range/);
    const badTime = await runCli(["traces", "export", "requests", "--from", "last week"], env);
    expect(badTime.stderr).toMatch(/--from is an ISO 8601 time with a zone offset/);
    const left = await runCli(["traces", "export", "requests", "--from", "2000-01-01"], env);
    expect(
      left.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).externalId),
    ).toEqual(["c"]);
  });

  describe("while another process holds the database", () => {
    let handle: DatabaseHandle;
    let server: Server | undefined;

    beforeAll(async () => {
      handle = await openDatabase({ kind: "pglite", dataDir });
    });
    afterAll(async () => {
      server?.close();
      await handle.close();
    });

    it("says plainly who holds it when that process serves no API", async () => {
      const result = await runCli(["list"], env);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`process ${process.pid}|pid ${process.pid}|${process.pid}`));
      expect(result.stderr).toMatch(/--server <url>/);
    });

    it("goes through the holder's API when it serves one", async () => {
      server = await serveTrpcToCli(() => contextFor(handle.db, { kind: "local", name: "cli test" }));

      const listed = await runCli(["list"], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/middleware/);
      const exported = await runCli(["export", "middleware"], env);
      expect(exported.stdout).toBe(WITH_COUNTERS);
    });
  });
});
