// The ace CLI as a person or a CI script runs it, for its integration tests: each command a child
// process (tsx), and the tRPC API that a process holding the embedded database serves to it.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { setLockUrl } from "@/server/db/lock";
import type { Context } from "@/server/trpc/init";
import { appRouter } from "@/server/trpc/root";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run ace -- <args>` with `input` on stdin (none: empty). The variables that would point
 * it at another database, key or password are cleared, so only `env` says where and who.
 */
export function runCli(args: string[], env: Record<string, string>, input = ""): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ["--import", "tsx", path.join(repoRoot, "server/cli/ace.ts"), ...args],
      {
        cwd: repoRoot,
        env: { ...process.env, DATABASE_URL: "", ACE_API_KEY: "", ACE_ADMIN_PASSWORD: "", ACE_SETUP_TOKEN: "", ...env },
        timeout: 120_000,
        maxBuffer: 20_000_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(input);
  });
}

/**
 * Serves the tRPC API on a free port of 127.0.0.1, with contexts from `createContext`, and tells the
 * CLI that the process holding the database serves it there (setLockUrl). Close the server after.
 */
export async function serveTrpcToCli(
  createContext: (options: { req: Request; resHeaders: Headers }) => Context | Promise<Context>,
): Promise<Server> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers,
      body: req.method === "GET" ? undefined : Buffer.concat(chunks),
    });
    const response = await fetchRequestHandler({ endpoint: "/api/trpc", req: request, router: appRouter, createContext });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  setLockUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  return server;
}
