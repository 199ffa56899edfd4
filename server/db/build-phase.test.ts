// A build opens no database: `next build` sets NEXT_PHASE for itself and its page-generation workers,
// which run instrumentation.ts's register() too. With DATABASE_URL pointing at a port that records
// every connection and DATA_DIR at an empty folder, nothing connects and nothing is written.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { register } from "@/instrumentation";
import { getDb } from "./client";

describe("a build opens no database", () => {
  const saved = { ...process.env };
  let tripwire: net.Server;
  let connections = 0;
  let dataDir: string;

  beforeEach(async () => {
    connections = 0;
    tripwire = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => tripwire.listen(0, "127.0.0.1", resolve));
    dataDir = mkdtempSync(join(tmpdir(), "ace-build-"));
    const { port } = tripwire.address() as net.AddressInfo;
    Object.assign(process.env, {
      NEXT_PHASE: "phase-production-build",
      NEXT_RUNTIME: "nodejs",
      DATABASE_URL: `postgresql://ace@127.0.0.1:${port}/production`,
      DATA_DIR: dataDir,
    });
  });

  afterEach(async () => {
    process.env = { ...saved };
    await new Promise((resolve) => tripwire.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("the start-up hook does nothing while building: no connection to DATABASE_URL", async () => {
    await register();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(connections).toBe(0);
  });

  it("asking for the database while building fails saying what to change, and connects to nothing", async () => {
    await expect(getDb()).rejects.toThrow(/A build opens no database.*force-dynamic/);
    expect(connections).toBe(0);
  });

  it("with DATA_DIR instead, the folder stays empty", async () => {
    process.env.DATABASE_URL = "";
    await register();
    await expect(getDb()).rejects.toThrow(/A build opens no database/);
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
