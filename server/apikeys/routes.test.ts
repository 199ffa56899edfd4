// Every route handler under app/api declares what it needs: /api/v1 routes (the agents' API, and
// MCP) an API key scope through apiRoute(), the studio's own downloads a role through sessionRoute().
// A route file exporting a bare function fails here.
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { API_SCOPES } from "./schemas";
import { routeAccessOf } from "./route";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Routes that need no key at all, and why. */
const PUBLIC_ROUTES = new Set(["app/api/v1/openapi.json/route.ts", "app/api/v1/health/route.ts"]);

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return /^route\.(ts|tsx|js|mjs)$/.test(name) ? [full] : [];
  });
}

// tRPC enforces roles per procedure (server/trpc/access.test.ts).
const files = routeFiles(path.join(root, "app/api"))
  .map((file) => path.relative(root, file).split(path.sep).join("/"))
  .filter((file) => !file.startsWith("app/api/trpc/"))
  .sort();

describe("route handlers under app/api", () => {
  it("are found", () => {
    expect(files).toContain("app/api/v1/traces/route.ts");
    expect(files).toContain("app/api/v1/playbooks/[name]/context/route.ts");
    expect(files).toContain("app/api/mcp/route.ts");
  });

  it.each(files)(
    "%s declares what each handler needs",
    async (file) => {
      const routeModule = (await import(/* @vite-ignore */ path.join(root, file))) as Record<string, unknown>;
      const handlers = METHODS.filter((method) => method in routeModule);
      expect(handlers.length, `${file} exports no HTTP handler`).toBeGreaterThan(0);
      for (const method of handlers) {
        const access = routeAccessOf(routeModule[method]);
        expect(access, `${method} in ${file}: wrap it in apiRoute({ scope }) or sessionRoute({ role })`).not.toBeNull();
        if (file.startsWith("app/api/mcp/")) {
          expect(access, `${method} ${file}: MCP takes API keys with the mcp scope`).toEqual({ kind: "scope", scope: "mcp" });
        } else if (file.startsWith("app/api/v1/")) {
          if (PUBLIC_ROUTES.has(file)) expect(access?.kind).toBe("public");
          else {
            expect(access?.kind, `${method} ${file}: /api/v1 routes take API keys`).toBe("scope");
            if (access?.kind === "scope") expect(API_SCOPES).toContain(access.scope);
          }
        } else {
          expect(access?.kind, `${method} ${file}: the studio's own routes take a session`).toBe("session");
        }
      }
      // A route module's first import loads its whole server graph (the MCP route: the SDK too).
    },
    30_000,
  );
});
