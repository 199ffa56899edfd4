// A playbook exported for coding agents (claude-md, agents-md, cursor-rules) through tRPC, the
// export route and the CLI, on embedded PGlite and PostgreSQL: the file's name, its header naming
// the playbook, version and time, the compiled context's ranking and the budget, and a clear 400
// for a budget with another format or one too small for the header.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { countTokens } from "@/server/ace/tokens";
import { testEngines } from "@/server/testing/db";
import { expectAppError, SMALL_PLAYBOOK } from "@/server/testing/fixtures";
import { playbookSuite } from "@/server/testing/playbook-suite";

const { GET } = await import("@/app/api/playbooks/[playbookId]/export/route");
const ROOT = path.resolve(import.meta.dirname, "../..");

function download(playbookId: string, query: string) {
  return GET(new Request(`http://localhost/api/playbooks/${playbookId}/export?${query}`), { params: Promise.resolve({ playbookId }) });
}

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(ROOT, "server/cli/ace.ts"), ...args],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 20_000_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe.each(testEngines())("exports for coding agents on %s", (engine) => {
  const suite = playbookSuite(engine, { name: "Support agent", as: ["local"] });

  it("writes CLAUDE.md with the bullets ranked as the compiled context, ids kept, and the playbook's version and time", async () => {
    const before = Date.now();
    const file = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "claude-md" });
    expect(file).toMatchObject({ fileName: "CLAUDE.md", format: "claude-md", mimeType: "text/markdown" });
    const stamp = /version 1, at (\S+): all 4 active bullets/.exec(file.content)?.[1];
    expect(Date.parse(stamp ?? "")).toBeGreaterThanOrEqual(before - 1_000);
    expect(file.content).toContain('<!-- Exported by ACE Studio from the playbook "Support agent"');
    // Inside a section the best-ranked first: str-00001 (3 − 0), str-00003 (0), str-00002 (1 − 4).
    const ids = [...file.content.matchAll(/^- \[([^\]]+)\]/gm)].map((match) => match[1]);
    expect(ids).toEqual(["str-00001", "str-00003", "str-00002", "mis-00004"]);
    expect((await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "agents-md" })).fileName).toBe("AGENTS.md");
    const rule = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "cursor-rules" });
    expect(rule.fileName).toBe("support-agent.mdc");
    expect(rule.content.startsWith("---\ndescription: ")).toBe(true);
  });

  it("honours a budget, leaving the lowest-ranked bullet out first", async () => {
    const whole = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "agents-md" });
    const budget = countTokens(whole.content) - 5;
    const cut = await suite.caller.playbook.export({ playbookId: suite.playbookId, format: "agents-md", budget });
    expect(countTokens(cut.content)).toBeLessThanOrEqual(budget);
    expect(cut.content).toMatch(/the 3 best-ranked of 4 active bullets/);
    expect(cut.content).not.toContain("[str-00002]");
  });

  it("serves the file from the export route with ?budget=, and says what is wrong with a bad request", async () => {
    const response = await download(suite.playbookId, "format=cursor-rules&budget=5000");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="support-agent.mdc"');
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await response.text()).toContain("alwaysApply: true");

    const withAce = await download(suite.playbookId, "format=ace&budget=5000");
    expect(withAce.status).toBe(400);
    expect(JSON.stringify(await withAce.json())).toMatch(/budget applies to the formats claude-md, agents-md, cursor-rules only/);
    const tooSmall = await download(suite.playbookId, "format=claude-md&budget=10");
    expect(tooSmall.status).toBe(400);
    expect(JSON.stringify(await tooSmall.json())).toMatch(/A budget of 10 tokens does not hold even the file's header; give at least \d+/);
    const notANumber = await download(suite.playbookId, "format=claude-md&budget=lots");
    expect(notANumber.status).toBe(400);
    expect(JSON.stringify(await notANumber.json())).toMatch(/budget is a whole number of tokens/);
    await expectAppError(
      suite.caller.playbook.export({ playbookId: suite.playbookId, format: "claude-md", budget: 0 }),
      "BAD_REQUEST",
      /budget is at least 1 token/,
    );
  });

  it("is what `npm run ace -- export --format claude-md --budget` prints", { timeout: 600_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "ace-agent-export-"));
    const env: Record<string, string> =
      engine === "postgres"
        ? { DATABASE_URL: inject("testPostgresUrl") as string, DATA_DIR: dataDir }
        : { DATABASE_URL: "", DATA_DIR: dataDir };
    try {
      // PostgreSQL: the test's own database holds the playbook; PGlite: the CLI's folder gets it by import.
      if (engine === "pglite") {
        const file = path.join(dataDir, "support.txt");
        writeFileSync(file, SMALL_PLAYBOOK);
        const imported = await runCli(["import", file, "--playbook", "Support agent"], env);
        expect(imported.code, imported.stderr).toBe(0);
      }
      const printed = await runCli(["export", "Support agent", "--format", "claude-md", "--budget", "5000"], env);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toMatch(
        /^<!-- Exported by ACE Studio from the playbook "Support agent", version 1, at .*\n\n# Playbook: Support agent\n/,
      );
      expect(printed.stdout).toContain("- [str-00001] Always verify data types before processing numeric fields.\n");
      const refused = await runCli(["export", "Support agent", "--format", "ace", "--budget", "5000"], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/--budget applies to --format claude-md, agents-md, cursor-rules only/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
