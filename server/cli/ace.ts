// `npm run ace -- <command>`: import, export and list playbooks from a terminal, and serve MCP on
// stdio for coding agents (`npm run -s ace -- mcp`).
// Uses the app's database configuration. When a running ACE Studio server holds the embedded
// database, the CLI goes through that server's API instead of opening the files itself.
import { appendFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { ZodError } from "zod";
import { KAYBA_FLAVOURS, KAYBA_FLAVOUR_INFO, type KaybaFlavour } from "@/server/ace/formats/kayba";
import { databaseConfigFromEnv, DatabaseConfigError } from "@/server/db/config";
import { openDatabase, type DatabaseHandle } from "@/server/db/client";
import { DatabaseBusyError, readLiveLock } from "@/server/db/lock";
import { AppError } from "@/server/errors/app-error";
import { keepStdoutForProtocol, relayToServer, serveOnDatabase } from "@/server/mcp/stdio";
import { createCaller, type AppRouter } from "@/server/trpc/root";
import { decodeUtf8, InvalidUtf8Error } from "@/server/ace/text/utf8";
import { instantParameter } from "@/server/http/query";
import type { TraceDeletionResult, TraceExportPage, TraceSelection, TraceSelectionSummary } from "@/server/traces/schemas";
import { cliActor, cliContext, cliServerHeaders, isAccountsCommand, runAccountsCommand } from "./accounts";
import { printTable } from "./table";
import {
  AGENT_FORMATS,
  EXPORT_FORMATS,
  PLAYBOOK_FORMATS,
  type ExportFormat,
  type ExportResult,
  type ImportPlaybookInput,
  type ImportResult,
  type PlaybookFormat,
  type PlaybookListItem,
} from "@/server/playbooks/schemas";

const USAGE = `ACE Studio CLI

Usage:
  npm run ace -- list
  npm run ace -- import <file> [--playbook <name>] [--format <fmt>] [--merge | --replace | --propose [--base <version>]]
  npm run ace -- export <playbook> [--format <fmt>] [--kayba <flavour>] [--budget <tokens>] [--out <file>]
  npm run ace -- traces export <playbook> <selection> [--out <file>]
  npm run ace -- traces delete <playbook> <selection> [--export <file>] [--yes]
  npm run ace -- user create … | apikey create … | apikey list | apikey revoke <id>   (npm run ace -- user --help)
  npm run -s ace -- mcp [--playbook <name>]

Formats: ${PLAYBOOK_FORMATS.join(", ")} (import detects the format when --format is not given;
export uses the playbook's own format unless told otherwise). Export only, for coding agents:
${AGENT_FORMATS.join(", ")} (the bullets ranked and cut to --budget tokens, default the playbook's budget).

import   creates a playbook named --playbook (default: the file name). If that playbook exists,
         --merge adds new ids and updates known ones; --replace also archives bullets missing from the file;
         --propose sends what the file changed since --base (default: the current version) to review as one delta.
mcp      serves MCP on stdio for a coding agent (Claude Code, Cursor, Cline): JSON-RPC only on stdout, notes on
         stderr. --playbook is the playbook the tools use when a call names none. Through a running server
         when it holds the embedded database (or with --server), with ACE_API_KEY where it requires keys.
export   writes to stdout unless --out is given. <playbook> is a name or an id. As kayba, --kayba picks
         what a kayba version reads (default: the playbook's own flavour, else skills-counters):
${KAYBA_FLAVOURS.map((flavour) => `           ${flavour.padEnd(16)} ${KAYBA_FLAVOUR_INFO[flavour].label}`).join("\n")}

traces   a unit's data, for a subject-access or deletion request. <selection> is any of --unit-id <id> (as the
         agent sent it), --external-id <id>, --from <time> and --to <time> (ISO 8601 with a zone, or a UTC date),
         at least one. export writes JSON Lines (stdout unless --out). delete says what it would delete; with --yes
         it deletes, after writing the export to --export when given. A unit id alone also deletes its exposures.

Database: DATABASE_URL (PostgreSQL) or the embedded database in DATA_DIR (default ./.data).
Server:   --server <url> talks to a running ACE Studio instead of the database.
Errors:   one message and exit status 1; --debug also prints where it happened.`;

/** The procedures the CLI needs, whether called in-process or over HTTP. */
interface Backend {
  list(): Promise<PlaybookListItem[]>;
  import(input: ImportPlaybookInput): Promise<ImportResult>;
  export(input: { playbookId: string; format?: ExportFormat; kaybaFlavour?: KaybaFlavour; budget?: number }): Promise<ExportResult>;
  traceSummary(selection: TraceSelection): Promise<TraceSelectionSummary>;
  exportTraces(selection: TraceSelection, cursor: string | null): Promise<TraceExportPage>;
  deleteTraces(selection: TraceSelection): Promise<TraceDeletionResult>;
  close(): Promise<void>;
  describe: string;
}

function httpBackend(url: string): Backend {
  const client = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: new URL("/api/trpc", url).toString(), transformer: superjson, headers: cliServerHeaders() })],
  });
  return {
    describe: `the ACE Studio server at ${url}`,
    list: () => client.playbook.list.query(),
    import: (input) => client.playbook.import.mutate(input),
    export: (input) => client.playbook.export.query(input),
    traceSummary: (selection) => client.traces.selectionSummary.query(selection),
    exportTraces: (selection, cursor) => client.traces.exportSelection.query({ selection, cursor }),
    deleteTraces: (selection) => client.traces.deleteSelection.mutate(selection),
    close: async () => undefined,
  };
}

/**
 * The database of DATABASE_URL or DATA_DIR, opened here; or, when a running server holds the
 * embedded database's folder, that server's address, so that two processes never open one folder.
 */
async function databaseOrItsServer(): Promise<{ serverUrl: string } | { handle: DatabaseHandle; describe: string }> {
  const config = databaseConfigFromEnv();
  if (config.kind === "pglite") {
    const holder = readLiveLock(config.dataDir);
    if (holder?.url) return { serverUrl: holder.url };
  }
  try {
    const handle = await openDatabase(config);
    return { handle, describe: config.kind === "pglite" ? `the embedded database in ${config.dataDir}` : "PostgreSQL (DATABASE_URL)" };
  } catch (error) {
    if (error instanceof DatabaseBusyError) {
      throw new AppError("BUSY", `${error.message}\nOr pass --server <url> to go through a running ACE Studio.`);
    }
    throw error;
  }
}

async function localBackend(): Promise<Backend> {
  const target = await databaseOrItsServer();
  if ("serverUrl" in target) return httpBackend(target.serverUrl);
  const { handle } = target;
  const caller = createCaller(cliContext(handle.db));
  return {
    describe: target.describe,
    list: () => caller.playbook.list(),
    import: (input) => caller.playbook.import(input),
    export: (input) => caller.playbook.export(input),
    traceSummary: (selection) => caller.traces.selectionSummary(selection),
    exportTraces: (selection, cursor) => caller.traces.exportSelection({ selection, cursor }),
    deleteTraces: (selection) => caller.traces.deleteSelection(selection),
    close: () => handle.close(),
  };
}

function parseFormat(value: string | undefined): PlaybookFormat | undefined {
  if (value === undefined) return undefined;
  if ((PLAYBOOK_FORMATS as readonly string[]).includes(value)) return value as PlaybookFormat;
  throw new AppError("INVALID_INPUT", `Unknown format "${value}". Use one of: ${PLAYBOOK_FORMATS.join(", ")}.`);
}

function parseExportFormat(value: string | undefined): ExportFormat | undefined {
  if (value === undefined) return undefined;
  if ((EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw new AppError("INVALID_INPUT", `Unknown format "${value}". Use one of: ${EXPORT_FORMATS.join(", ")}.`);
}

function parseBudget(value: string | undefined, format: ExportFormat | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (format === undefined || !(AGENT_FORMATS as readonly string[]).includes(format)) {
    throw new AppError("INVALID_INPUT", `--budget applies to --format ${AGENT_FORMATS.join(", ")} only.`);
  }
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new AppError("INVALID_INPUT", `--budget is a whole number of tokens, e.g. --budget 8000; got "${value}".`);
  }
  return Number(value);
}

function parseKaybaFlavour(value: string | undefined, format: ExportFormat | undefined): KaybaFlavour | undefined {
  if (value === undefined) return undefined;
  if (format !== undefined && format !== "kayba") throw new AppError("INVALID_INPUT", `--kayba applies to --format kayba only.`);
  if ((KAYBA_FLAVOURS as readonly string[]).includes(value)) return value as KaybaFlavour;
  throw new AppError("INVALID_INPUT", `Unknown kayba flavour "${value}". Use one of: ${KAYBA_FLAVOURS.join(", ")}.`);
}

async function findPlaybook(backend: Backend, nameOrId: string): Promise<PlaybookListItem | undefined> {
  const playbooks = await backend.list();
  return playbooks.find((playbook) => playbook.name === nameOrId || playbook.id === nameOrId);
}

async function runList(backend: Backend): Promise<void> {
  const playbooks = await backend.list();
  if (playbooks.length === 0) {
    console.log(`No playbooks yet in ${backend.describe}. Import one: npm run ace -- import <file>`);
    return;
  }
  const rows = playbooks.map((p) => [
    p.name,
    p.agentLabel,
    String(p.bulletCount),
    String(p.sectionCount),
    p.sourceFormat,
    `v${p.version}`,
    p.updatedAt.toISOString(),
  ]);
  printTable(["NAME", "AGENT", "BULLETS", "SECTIONS", "FORMAT", "VERSION", "UPDATED"], rows);
}

type ImportOptions = { playbook?: string; format?: string; merge?: boolean; replace?: boolean; propose?: boolean; base?: string };

async function runImport(backend: Backend, file: string, options: ImportOptions): Promise<void> {
  if ([options.merge, options.replace, options.propose].filter(Boolean).length > 1) {
    throw new AppError("INVALID_INPUT", "Choose one of --merge, --replace or --propose.");
  }
  if (options.base !== undefined && !options.propose) throw new AppError("INVALID_INPUT", "--base goes with --propose.");
  if (options.base !== undefined && !/^\d+$/.test(options.base)) {
    throw new AppError("INVALID_INPUT", `--base is a version number, e.g. --base 7; got "${options.base}".`);
  }
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new AppError("INVALID_INPUT", `Cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}.`);
  });
  // Read as bytes: a file that is not UTF-8 is refused at its first bad byte, never imported with U+FFFD.
  let content: string;
  try {
    content = decodeUtf8(bytes);
  } catch (error) {
    if (!(error instanceof InvalidUtf8Error)) throw error;
    throw new AppError("INVALID_INPUT", `${file}: ${error.message}. Nothing was imported.`, { details: { byteOffset: error.offset } });
  }
  const fileName = path.basename(file);
  const name = options.playbook ?? fileName.replace(/\.(ace\.json|json|txt|md)$/i, "");
  const existing = await findPlaybook(backend, name);
  const mode = options.replace ? "replace" : options.merge ? "merge" : options.propose ? "propose" : null;
  if (existing && !mode) {
    throw new AppError(
      "CONFLICT",
      `A playbook named "${name}" already exists. Add --merge, --replace or --propose to import into it, or choose another name with --playbook.`,
    );
  }
  if (!existing && mode) throw new AppError("NOT_FOUND", `There is no playbook named "${name}" to ${mode} into.`);
  const baseVersion = options.base === undefined ? {} : { baseVersion: Number(options.base) };
  const result = await backend.import({
    content,
    fileName,
    format: parseFormat(options.format) ?? "auto",
    target: existing && mode ? { kind: "existing", playbookId: existing.id, mode, ...baseVersion } : { kind: "new", name },
  });
  const { proposal } = result;
  for (const warning of result.warnings) console.error(`note: ${warning}`);
  if (proposal) {
    console.error(
      proposal.deltaId ? `${proposal.message}\nDelta ${proposal.deltaId} waits in the review queue of "${result.name}".` : proposal.message,
    );
    for (const conflict of proposal.conflicts) console.error(`  conflict: ${conflict.message}`);
    return;
  }
  console.error(
    `Imported ${fileName} (${result.format}) into "${result.name}": ${result.bulletCount} bullets in ${result.sectionCount} sections, version ${result.version}.`,
  );
}

async function runExport(
  backend: Backend,
  nameOrId: string,
  options: { format?: string; kayba?: string; budget?: string; out?: string },
): Promise<void> {
  const format = parseExportFormat(options.format);
  const kaybaFlavour = parseKaybaFlavour(options.kayba, format);
  const budget = parseBudget(options.budget, format);
  const playbook = await findPlaybook(backend, nameOrId);
  if (!playbook) throw new AppError("NOT_FOUND", `There is no playbook named "${nameOrId}". See the names with: npm run ace -- list`);
  const file = await backend.export({ playbookId: playbook.id, format: kaybaFlavour ? "kayba" : format, kaybaFlavour, budget });
  if (options.out) {
    await writeFile(options.out, file.content, "utf8");
    console.error(`Exported "${playbook.name}" (${file.format}) to ${options.out}.`);
  } else {
    process.stdout.write(file.content);
  }
}

type TraceOptions = {
  "unit-id"?: string;
  "external-id"?: string;
  from?: string;
  to?: string;
  out?: string;
  export?: string;
  yes?: boolean;
};

async function traceSelection(backend: Backend, nameOrId: string, options: TraceOptions): Promise<TraceSelection> {
  const playbook = await findPlaybook(backend, nameOrId);
  if (!playbook) throw new AppError("NOT_FOUND", `There is no playbook named "${nameOrId}". See the names with: npm run ace -- list`);
  const time = (name: "from" | "to") => (options[name] === undefined ? undefined : instantParameter(`--${name}`).parse(options[name]));
  return { playbookId: playbook.id, unitId: options["unit-id"], externalId: options["external-id"], from: time("from"), to: time("to") };
}

/** Writes the selection's export, a page at a time, to the file or stdout; returns the records written. */
async function writeTraceExport(backend: Backend, selection: TraceSelection, file: string | undefined): Promise<number> {
  let written = 0;
  let cursor: string | null = null;
  if (file) await writeFile(file, "", "utf8");
  do {
    const page: TraceExportPage = await backend.exportTraces(selection, cursor);
    const text = page.records.map((record) => `${JSON.stringify(record)}\n`).join("");
    if (file) await appendFile(file, text, "utf8");
    else process.stdout.write(text);
    written += page.records.length;
    cursor = page.nextCursor;
  } while (cursor);
  return written;
}

async function runTraces(backend: Backend, action: string, nameOrId: string, options: TraceOptions): Promise<number> {
  const selection = await traceSelection(backend, nameOrId, options);
  if (action === "export") {
    const written = await writeTraceExport(backend, selection, options.out);
    if (options.out) console.error(`Exported ${written} record(s) to ${options.out}.`);
    return 0;
  }
  const summary = await backend.traceSummary(selection);
  const what = `${summary.traces} trace(s) and ${summary.exposures} experiment exposure(s)`;
  if (!options.yes) {
    console.error(
      `This would delete ${what} of "${nameOrId}". Nothing was deleted: add --yes to delete (and --export <file> to keep a copy first).`,
    );
    return summary.traces + summary.exposures === 0 ? 0 : 1;
  }
  if (options.export) {
    const written = await writeTraceExport(backend, selection, options.export);
    console.error(`Exported ${written} record(s) to ${options.export}.`);
  }
  const deleted = await backend.deleteTraces(selection);
  console.error(
    `Deleted ${deleted.traces} trace(s) and ${deleted.exposures} experiment exposure(s) of "${nameOrId}"; ` +
      `emptied ${deleted.runsEmptied} run(s) and rewrote ${deleted.deltasRewritten} delta(s) that quoted them.`,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  if (isAccountsCommand(argv[0])) return runAccountsCommand(argv);
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      playbook: { type: "string" },
      format: { type: "string" },
      out: { type: "string" },
      merge: { type: "boolean" },
      replace: { type: "boolean" },
      propose: { type: "boolean" },
      base: { type: "string" },
      server: { type: "string" },
      kayba: { type: "string" },
      budget: { type: "string" },
      "unit-id": { type: "string" },
      "external-id": { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      export: { type: "string" },
      yes: { type: "boolean" },
      debug: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, target] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  if (command === "mcp") return runMcp(values);
  if (command === "traces") {
    const [, action, playbook] = positionals;
    if (!action || !["export", "delete"].includes(action) || !playbook) {
      console.error(`"traces" needs export or delete, then a playbook name.\n\n${USAGE}`);
      return 2;
    }
    const backend = values.server ? httpBackend(values.server) : await localBackend();
    try {
      return await runTraces(backend, action, playbook, values);
    } finally {
      await backend.close();
    }
  }
  if (!["list", "import", "export"].includes(command)) {
    console.error(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  if (command !== "list" && !target) {
    console.error(`"${command}" needs a ${command === "import" ? "file" : "playbook name"}.\n\n${USAGE}`);
    return 2;
  }
  const backend = values.server ? httpBackend(values.server) : await localBackend();
  try {
    if (command === "list") await runList(backend);
    if (command === "import") await runImport(backend, target as string, values);
    if (command === "export") await runExport(backend, target as string, values);
    return 0;
  } finally {
    await backend.close();
  }
}

/**
 * Serves MCP on stdio until the client closes it: on the database itself, or relayed to the running
 * server that holds it (or to --server), so that two processes never open one PGlite folder.
 */
async function runMcp(options: { playbook?: string; server?: string }): Promise<number> {
  keepStdoutForProtocol();
  const playbook = options.playbook?.trim() || null;
  const relay = (url: string) => relayToServer(url, { playbook, headers: cliServerHeaders() });
  if (options.server) {
    await relay(options.server);
    return 0;
  }
  const target = await databaseOrItsServer();
  if ("serverUrl" in target) {
    await relay(target.serverUrl);
    return 0;
  }
  try {
    await serveOnDatabase(target.handle.db, { actor: cliActor(), playbook });
  } finally {
    await target.handle.close();
  }
  return 0;
}

/**
 * The message a person acts on. A refusal (a parse error, a name clash, invalid input) reads as the
 * server words it; zod's issues as their messages, not as the raw list. Anything else is a fault:
 * its message, and where it happened only with --debug.
 */
function explain(error: unknown): { message: string; fault: boolean } {
  if (error instanceof AppError || error instanceof DatabaseConfigError || error instanceof DatabaseBusyError)
    return { message: error.message, fault: false };
  if (error instanceof TRPCError) {
    if (error.cause instanceof ZodError) return { message: issueMessages(error.cause.issues), fault: false };
    return { message: error.message, fault: error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof AppError) };
  }
  if (error instanceof TRPCClientError) {
    const issues = issuesIn(error.message);
    return { message: issues ? issueMessages(issues) : error.message, fault: error.data?.httpStatus === 500 };
  }
  if (error instanceof TypeError && /fetch failed/.test(error.message)) {
    return {
      message: "Could not reach the ACE Studio server. Is it running? (The embedded database's lock names its address.)",
      fault: false,
    };
  }
  if (error instanceof Error && "code" in error && error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
    return { message: `${error.message}\n\n${USAGE}`, fault: false };
  return { message: error instanceof Error ? error.message : String(error), fault: true };
}

function issueMessages(issues: readonly { message: string }[]): string {
  return issues.map((issue) => issue.message).join(" ");
}

/** tRPC over HTTP sends an input's zod issues as the message, a JSON list. */
function issuesIn(message: string): { message: string }[] | null {
  if (!message.trimStart().startsWith("[")) return null;
  try {
    const parsed: unknown = JSON.parse(message);
    if (!Array.isArray(parsed)) return null;
    const issues = parsed.filter((issue): issue is { message: string } => typeof issue?.message === "string");
    return issues.length > 0 ? issues : null;
  } catch {
    return null;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { message, fault } = explain(error);
    const debug = process.argv.slice(2).includes("--debug");
    console.error(
      fault && !debug ? `${message}\n(Something went wrong in ACE Studio itself. Run again with --debug to see where.)` : message,
    );
    if (debug && error instanceof Error)
      console.error(
        `\n${error.stack ?? ""}${error.cause instanceof Error ? `\nCaused by: ${error.cause.stack ?? error.cause.message}` : ""}`,
      );
    process.exit(1);
  },
);
