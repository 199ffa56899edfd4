// `npm run ace -- user …` and `apikey …` as a person or a CI script runs them: child processes on a
// real embedded database folder, then through a running server that requires sign-in (setup
// token, admin API key).
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadAuthSettings, setAuthSettings } from "@/server/auth/config";
import { installPeerStamp } from "@/server/auth/peer";
import { addSetupToken } from "@/server/auth/service";
import { openDatabase, serveDb, type DatabaseHandle } from "@/server/db/client";
import { runCli, serveTrpcToCli } from "@/server/testing/cli";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";
import { callerAs } from "@/server/trpc/callers";
import { createTRPCContext } from "@/server/trpc/init";

const PASSWORD = "correct horse battery staple";

describe("account commands of the ace CLI", { timeout: 300_000 }, () => {
  const dirs: string[] = [];
  const newDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "ace-accounts-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  describe("on the database itself", () => {
    let env: Record<string, string>;
    beforeAll(() => {
      env = { DATA_DIR: newDir() };
    });

    it("creates an admin (password from ACE_ADMIN_PASSWORD) and a curator (password on stdin)", async () => {
      const admin = await runCli(["user", "create", "--admin", "--email", "Ada@Example.com"], { ...env, ACE_ADMIN_PASSWORD: PASSWORD });
      expect(admin.stderr).toMatch(/Created admin ada@example\.com/);
      expect(admin.code).toBe(0);
      const curator = await runCli(
        ["user", "create", "--role", "curator", "--email", "bob@example.com", "--name", "Bob"],
        env,
        `${PASSWORD}\n`,
      );
      expect(curator.stderr).toMatch(/Created curator bob@example\.com/);
      const twice = await runCli(["user", "create", "--admin", "--email", "ada@example.com"], { ...env, ACE_ADMIN_PASSWORD: PASSWORD });
      expect(twice.code).toBe(1);
      expect(twice.stderr).toMatch(/ada@example\.com has an account already/);
      const short = await runCli(["user", "create", "--admin", "--email", "eve@example.com"], { ...env, ACE_ADMIN_PASSWORD: "short" });
      expect(short.stderr).toMatch(/at least 10 characters/);
      const common = await runCli(["user", "create", "--admin", "--email", "eve@example.com"], {
        ...env,
        ACE_ADMIN_PASSWORD: "password12",
      });
      expect(common.code).toBe(1);
      expect(common.stderr).toMatch(/one of the most common passwords/);
    });

    it("creates a key limited to a playbook, prints it alone on the last line, lists and revokes it", async () => {
      const imported = await runCli(
        ["import", path.join(PLAYBOOK_FIXTURES_DIR, "ace-appworld__appworld_initial_playbook.txt"), "--playbook", "appworld"],
        env,
      );
      expect(imported.code, imported.stderr).toBe(0);
      const created = await runCli(
        ["apikey", "create", "--name", "ci agent", "--scopes", "context:read,traces:write", "--playbook", "appworld", "--expires", "30"],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const lines = created.stdout.trimEnd().split("\n");
      expect(lines.at(-1)).toMatch(/^ace_[a-z2-7]{13}_[a-z2-7]{52}$/);
      expect(created.stderr).toMatch(/shown only this once/);

      const listed = await runCli(["apikey", "list"], env);
      expect(listed.stdout).toMatch(
        /ci agent\s+ace_[a-z2-7]{13}_…[a-z2-7]{4}\s+traces:write,context:read\s+appworld\s+active\s+never\s+local operator/,
      );
      expect(listed.stdout).not.toContain(lines.at(-1));
      const id = /^([0-9a-f-]{36})\s+ci agent/m.exec(listed.stdout)?.[1];
      const revoked = await runCli(["apikey", "revoke", id ?? "missing"], env);
      expect(revoked.stderr).toMatch(/Revoked API key "ci agent"/);
      expect((await runCli(["apikey", "list"], env)).stdout).toMatch(/ci agent.*revoked/);
    });

    it("explains bad scopes and missing options", async () => {
      const scope = await runCli(["apikey", "create", "--name", "x", "--scopes", "traces:write,everything"], env);
      expect(scope.code).toBe(1);
      expect(scope.stderr).toMatch(/Unknown scope everything\. Scopes: traces:write/);
      const noEmail = await runCli(["user", "create", "--admin"], env);
      expect(noEmail.stderr).toMatch(/needs --email/);
      const unknown = await runCli(["apikey", "rotate"], env);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/Unknown command "apikey rotate"/);
    });
  });

  describe("through a running server that requires sign-in", () => {
    let env: Record<string, string>;
    let handle: DatabaseHandle;
    let server: Server;

    beforeAll(async () => {
      const dataDir = newDir();
      env = { DATA_DIR: dataDir };
      handle = await openDatabase({ kind: "pglite", dataDir });
      serveDb(handle.db);
      setAuthSettings(loadAuthSettings({ ACE_AUTH: "on" }));
      // The server as `npm start` runs it: requests stamped with their socket, contexts from the request.
      installPeerStamp();
      server = await serveTrpcToCli(({ req, resHeaders }) => createTRPCContext({ headers: req.headers, resHeaders }));
    });
    afterAll(async () => {
      server?.close();
      serveDb(undefined);
      setAuthSettings(undefined);
      await handle?.close();
    });

    it("creates the first admin only with the setup token the server printed", async () => {
      const refused = await runCli(["user", "create", "--admin", "--email", "ops@example.com"], { ...env, ACE_ADMIN_PASSWORD: PASSWORD });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/requires sign-in\. Create the first admin with --setup-token/);
      const token = "z".repeat(52);
      await addSetupToken(handle.db, token);
      const created = await runCli(["user", "create", "--admin", "--email", "ops@example.com", "--setup-token", token], {
        ...env,
        ACE_ADMIN_PASSWORD: PASSWORD,
      });
      expect(created.stderr).toMatch(/Created admin ops@example\.com in the ACE Studio server/);
      expect(await handle.db.setupToken.count()).toBe(0);
    });

    it("manages keys with an admin key in ACE_API_KEY, and says so without one", async () => {
      const without = await runCli(["apikey", "list"], env);
      expect(without.code).toBe(1);
      expect(without.stderr).toMatch(/ACE_API_KEY to a key with the admin scope/);
      const adminKey = await callerAs(handle.db, "local").apiKeys.create({ name: "ci admin", scopes: ["admin"], playbooks: "all" });
      const agentKey = await callerAs(handle.db, "local").apiKeys.create({ name: "agent", scopes: ["context:read"], playbooks: "all" });
      const listed = await runCli(["apikey", "list"], { ...env, ACE_API_KEY: adminKey.secret });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toMatch(/ci admin/);
      const asAgent = await runCli(["apikey", "list"], { ...env, ACE_API_KEY: agentKey.secret });
      expect(asAgent.stderr).toMatch(/has no admin scope/);
    });
  });
});
