// A server that cannot start exits with its reason instead of answering 500s: a second server on an
// embedded (PGlite) folder another process holds, and a server whose PostgreSQL cannot be reached.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { acquireLock } from "@/server/db/lock";

/** Runs instrumentation.ts's register() as Next.js does at start, in its own process. */
function startServerProcess(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "-e",
        'import("./instrumentation.ts").then((m) => m.register()).then(() => setTimeout(() => process.exit(0), 100))',
      ],
      {
        cwd: process.cwd(),
        env: { ...process.env, NEXT_RUNTIME: "nodejs", PORT: "3987", ACE_DEMO_SEED: "off", ACE_RUN_CONCURRENCY: "0", ...env },
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server process neither started nor stopped in 60 s: ${stderr}`));
    }, 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a server that cannot start", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ace-startup-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("on PGlite: a second server on a folder another process holds exits with the holder named", async () => {
    const release = acquireLock(dataDir); // this test process holds the folder, as a running server would
    try {
      const { code, stderr } = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: "" });
      expect(code).toBe(1);
      expect(stderr).toContain("[ace-studio] could not start: The embedded database in");
      expect(stderr).toContain(`is in use by another process: pid ${process.pid}`);
      expect(stderr).toContain("[ace-studio] stopping.");
    } finally {
      release();
    }
  });

  it("on PostgreSQL: a server whose database cannot be reached exits with the reason", async () => {
    const { code, stderr } = await startServerProcess({ DATABASE_URL: "postgresql://postgres@127.0.0.1:1/ace_nowhere" });
    expect(code).toBe(1);
    expect(stderr).toContain("[ace-studio] could not start:");
    expect(stderr).toContain("[ace-studio] stopping.");
  });
});
