// The production build served by `next start` for the browser and HTTP benchmarks: whether .next is
// current (and building it when it is not), starting the server in its own process group on a
// database of the bench's, and stopping it.
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { REPO_ROOT } from "./paths";

const SERVER_START_TIMEOUT_MS = 180_000;
const SERVER_STOP_TIMEOUT_MS = 10_000;
const LOAD_TIMEOUT_MS = 60_000;
const BUILD_TIMEOUT_MS = 20 * 60_000;

/**
 * The app `next start` serves and `npm run build` builds: this checkout, or BENCH_APP_DIR (another
 * checkout of the project with its own node_modules), for when this one's tree is mid-change.
 */
export const APP_ROOT = process.env.BENCH_APP_DIR?.trim() ? path.resolve(process.env.BENCH_APP_DIR.trim()) : REPO_ROOT;

/** Work to undo if the bench is interrupted (Ctrl-C) while a server runs. */
export type Cleanups = Set<() => Promise<void>>;

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.setTimeout(1_000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export interface Server {
  process: ChildProcess;
  origin: string;
  output: () => string;
  /** CPU time (user + system) the server's processes have used so far, in ms; null where /proc is not. */
  cpuMs: () => number | null;
  /** Resident memory of the server's processes, in bytes; null where /proc is not. */
  rssBytes: () => number | null;
  stop: () => Promise<void>;
}

/** The processes of a process group, from /proc (Linux); null where /proc is not. */
function groupProcesses(group: number): string[] | null {
  const members: string[] = [];
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        if (Number(fields[2]) === group) members.push(entry);
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    return null;
  }
  return members;
}

/** Sums a figure read from /proc/<pid>/<file> over a process group; a process that ended meanwhile counts 0. */
function sumOverGroup(group: number, file: "stat" | "status", read: (text: string) => number): number | null {
  const members = groupProcesses(group);
  if (members === null) return null;
  let total = 0;
  for (const pid of members) {
    try {
      total += read(readFileSync(`/proc/${pid}/${file}`, "utf8"));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

const TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** CPU time (user + system) used so far by a process group, in ms. */
const groupCpuMs = (group: number) =>
  sumOverGroup(group, "stat", (text) => {
    const fields = text.split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
  });

/** Resident memory of a process group, in bytes. */
const groupRssBytes = (group: number) => sumOverGroup(group, "status", (text) => Number(/^VmRSS:\s+(\d+) kB/m.exec(text)?.[1] ?? 0) * 1024);

/**
 * The V8 flags `npm start` gives the server (its heap limit, read from the app's package.json so a
 * BENCH_APP_DIR checkout runs with its own), then the bench's own NODE_OPTIONS.
 */
function serverNodeOptions(): string {
  const scripts = (JSON.parse(readFileSync(path.join(APP_ROOT, "package.json"), "utf8")) as { scripts?: Record<string, string> }).scripts;
  const heap = /--max-old-space-size=\d+/.exec(scripts?.start ?? "")?.[0];
  return [heap, process.env.NODE_OPTIONS].filter(Boolean).join(" ");
}

/**
 * `next start -p <port>` in its own process group, so stopping it also stops anything it spawned. A
 * shell leads the group and ends it when the bench process disappears, even by SIGKILL, so no server
 * is left holding the port. `env` says which database it serves (DATA_DIR or DATABASE_URL).
 */
export function startServer(port: number, env: Record<string, string>): Server {
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    ACE_DEMO_SEED: "off",
    NEXT_TELEMETRY_DISABLED: "1",
    NODE_OPTIONS: serverNodeOptions(),
  };
  // The bench's database, whatever the shell says; the HMAC key of API keys is the one stored in it.
  delete serverEnv.DATABASE_URL;
  delete serverEnv.DATA_DIR;
  delete serverEnv.ACE_SECRET;
  Object.assign(serverEnv, env);
  // Flags NODE_OPTIONS may not carry (--cpu-prof, to see where a row's time goes) go on the command.
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const next = [
    process.execPath,
    ...nodeArgs,
    path.join(APP_ROOT, "node_modules/next/dist/bin/next"),
    "start",
    "-H",
    "127.0.0.1",
    "-p",
    String(port),
  ];
  const watchdog =
    `${next.map(shellQuote).join(" ")} & server=$!; ` +
    `while kill -0 ${process.pid} 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done; ` +
    `kill -TERM 0`;
  const child = spawn("/bin/sh", ["-c", watchdog], { cwd: APP_ROOT, env: serverEnv, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const logFile = process.env.BENCH_SERVER_LOG?.trim();
  const keep = (chunk: Buffer) => {
    if (logFile) appendFileSync(logFile, chunk);
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (lines.length > 60) lines.splice(0, lines.length - 60);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const group = child.pid;
  const signal = (name: NodeJS.Signals | 0): boolean => {
    try {
      if (group) process.kill(-group, name);
      return group !== undefined;
    } catch {
      return false; // the group is gone
    }
  };
  /** True once no process of the group is left; the shell may exit before the server has. */
  const groupGone = async (withinMs: number): Promise<boolean> => {
    const deadline = Date.now() + withinMs;
    while (signal(0)) {
      if (Date.now() > deadline) return false;
      await sleep(100);
    }
    return true;
  };
  let stopping: Promise<void> | undefined;
  return {
    process: child,
    origin: `http://127.0.0.1:${port}`,
    output: () => lines.join("\n"),
    cpuMs: () => (group === undefined ? null : groupCpuMs(group)),
    rssBytes: () => (group === undefined ? null : groupRssBytes(group)),
    stop: () =>
      (stopping ??= (async () => {
        signal("SIGTERM");
        if (await groupGone(SERVER_STOP_TIMEOUT_MS)) return;
        signal("SIGKILL");
        if (!(await groupGone(SERVER_STOP_TIMEOUT_MS))) console.error(`[bench] process group ${group} survived SIGKILL`);
      })()),
  };
}

export async function waitUntilServing(server: Server, url: string): Promise<void> {
  const deadline = Date.now() + SERVER_START_TIMEOUT_MS;
  let lastProblem = "no answer yet";
  while (Date.now() < deadline) {
    if (server.process.exitCode !== null || server.process.signalCode !== null) {
      throw new Error(`next start exited (${server.process.exitCode ?? server.process.signalCode}) before serving:\n${server.output()}`);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(LOAD_TIMEOUT_MS) });
      await response.arrayBuffer();
      if (response.ok) return;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await sleep(500);
  }
  throw new Error(
    `next start did not serve ${url} within ${SERVER_START_TIMEOUT_MS / 1000} s (${lastProblem}). Server output:\n${server.output()}`,
  );
}

// ---- The build --------------------------------------------------------------------------------

/** What the production build is made from; tests, e2e specs and the bench are not in it. */
const BUILD_INPUTS = ["app", "components", "server", "public", "prisma/schema.prisma", "prisma/migrations"];
const BUILD_FILES = ["package.json", "package-lock.json", "next.config.mjs", "tsconfig.json", "proxy.ts", "postcss.config.mjs"];
const NOT_BUILT = /(\.test\.tsx?$|\.int\.test\.ts$)|^server\/(bench|testing)\/|^server\/db\/generated\//;

/** The newest modification time among the build's inputs, and the file that has it. */
export function newestBuildInput(root = APP_ROOT): { mtimeMs: number; file: string } {
  let newest = { mtimeMs: 0, file: "" };
  const consider = (relative: string) => {
    if (NOT_BUILT.test(relative)) return;
    const stat = statSync(path.join(root, relative), { throwIfNoEntry: false });
    if (!stat) return;
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path.join(root, relative))) consider(path.join(relative, entry));
    } else if (stat.mtimeMs > newest.mtimeMs) {
      newest = { mtimeMs: stat.mtimeMs, file: relative };
    }
  };
  for (const input of [...BUILD_INPUTS, ...BUILD_FILES]) consider(input);
  return newest;
}

/** Pids of `next build` processes running in the app's folder (another engineer's build, say). */
function runningBuilds(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc", { withFileTypes: true })) {
    if (!entry.isDirectory() || !/^\d+$/.test(entry.name) || Number(entry.name) === process.pid) continue;
    try {
      const args = readFileSync(`/proc/${entry.name}/cmdline`, "utf8").split("\0");
      const isBuild = args.some((arg) => /(^|\/)next$/.test(arg) || arg.endsWith("next/dist/bin/next")) && args.includes("build");
      if (isBuild && readlinkSync(`/proc/${entry.name}/cwd`) === APP_ROOT) pids.push(Number(entry.name));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

export type BuildState = { ok: true; note: string } | { ok: false; reason: string };

let building: Promise<BuildState> | undefined;

/**
 * A production build that is newer than every input, reused when it is; otherwise `npm run build`
 * (prebuild generates the Prisma client), after waiting for anyone else's build to finish. Once per
 * bench run.
 */
export function ensureBuild(): Promise<BuildState> {
  return (building ??= (async (): Promise<BuildState> => {
    for (let waited = 0; runningBuilds().length > 0; waited += 5) {
      if (waited === 0) console.log("[bench] another `next build` is running here; waiting for it to finish…");
      if (waited * 1000 > BUILD_TIMEOUT_MS) return { ok: false, reason: "Another `next build` ran for over 20 minutes." };
      await sleep(5_000);
    }
    const buildId = path.join(APP_ROOT, ".next", "BUILD_ID");
    const newest = newestBuildInput();
    const built = existsSync(buildId) ? statSync(buildId).mtimeMs : null;
    if (built !== null && built >= newest.mtimeMs) {
      return { ok: true, note: `reused the production build in ${path.join(APP_ROOT, ".next")} (built ${new Date(built).toISOString()})` };
    }
    const why = built === null ? "there is no production build" : `${newest.file} changed after the last build`;
    console.log(`[bench] building (npm run build): ${why}…`);
    const start = performance.now();
    const log: string[] = [];
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn("npm", ["run", "build"], { cwd: APP_ROOT, env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
      const keep = (chunk: Buffer) => log.push(chunk.toString("utf8"));
      child.stdout.on("data", keep);
      child.stderr.on("data", keep);
      const timer = setTimeout(() => child.kill("SIGTERM"), BUILD_TIMEOUT_MS);
      child.on("close", (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    const seconds = Math.round((performance.now() - start) / 1000);
    if (code !== 0 || !existsSync(buildId)) {
      return {
        ok: false,
        reason: `npm run build failed (exit ${code}) after ${seconds} s: ${log.join("").trim().split("\n").slice(-5).join(" / ")}`,
      };
    }
    console.log(`[bench] built in ${seconds} s`);
    return { ok: true, note: `built first (npm run build in ${APP_ROOT}, ${seconds} s): ${why}` };
  })());
}
