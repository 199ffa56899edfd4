// A file that is not UTF-8 (a Latin-1 export, a truncated character) is refused by `ace import`
// naming its first bad byte, never imported with U+FFFD in place of its bytes.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(process.cwd(), "server/cli/ace.ts"), ...args],
      { cwd: process.cwd(), env: { ...process.env, DATABASE_URL: "", ...env }, timeout: 280_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("ace import of a file that is not UTF-8", { timeout: 900_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), "ace-cli-encoding-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("is refused naming the byte offset, and nothing is imported; the same file in UTF-8 imports", async () => {
    const env = { DATA_DIR: dataDir };
    const latin1 = path.join(dataDir, "latin.txt");
    writeFileSync(latin1, Buffer.concat([Buffer.from("## s\n[s-00001] Caf"), Buffer.from([0xe9]), Buffer.from(" au lait\n")]));
    const refused = await runCli(["import", latin1, "--format", "ace"], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      /latin\.txt: byte 18 \(0xE9\) is not UTF-8; the text may be Latin-1 or Windows-1252: save it as UTF-8\. Nothing was imported\.$/,
    );
    expect((await runCli(["list"], env)).stdout).not.toMatch(/latin/);

    const utf8 = path.join(dataDir, "utf8.txt");
    writeFileSync(utf8, "## s\n[s-00001] Café au lait\n");
    const imported = await runCli(["import", utf8, "--format", "ace-plain"], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect((await runCli(["export", "utf8", "--format", "ace-plain"], env)).stdout).toContain("Café au lait");
  });
});
