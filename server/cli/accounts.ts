// `npm run ace -- user …` and `npm run ace -- apikey …`: accounts and API keys without the UI, so
// CI and containers can be scripted. On the database directly when no server holds it (the CLI is
// then the local operator); through a running server's API otherwise, with the setup token it
// printed (to create the first admin) or an admin API key (ACE_API_KEY).
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import superjson from "superjson";
import { pluralWord } from "@/server/ace/text/format";
import {
  API_SCOPES,
  creatorLabel,
  type ApiKeyListItem,
  type ApiScope,
  type CreateApiKeyInput,
  type CreatedApiKey,
} from "@/server/apikeys/schemas";
import { getAuthSettings } from "@/server/auth/config";
import { PASSWORD_MIN_LENGTH, ROLES, type Role, type SignedIn } from "@/server/auth/schemas";
import { getEnv } from "@/server/config/env";
import { openDatabase, type Db, type DatabaseHandle } from "@/server/db/client";
import { DatabaseBusyError, readLiveLock } from "@/server/db/lock";
import { AppError } from "@/server/errors/app-error";
import type { PlaybookListItem } from "@/server/playbooks/schemas";
import { contextFor, type Context } from "@/server/trpc/init";
import { createCaller, type AppRouter } from "@/server/trpc/root";
import { printTable } from "./table";

export const ACCOUNTS_USAGE = `Accounts and API keys:
  npm run ace -- user create --email <e> (--admin | --role viewer|curator|admin) [--name <n>]
      The password comes from ACE_ADMIN_PASSWORD, or from stdin (typed twice at a terminal).
  npm run ace -- apikey create --name <n> --scopes <a,b> [--playbook <p>]… [--expires <days>] [--rate-limit <n>]
      Prints the key alone on its last line; it is shown only this once.
  npm run ace -- apikey list
  npm run ace -- apikey revoke <id or ace_… public id>

Scopes: ${API_SCOPES.join(", ")}.
With a running server that requires sign-in: --setup-token <t> (or ACE_SETUP_TOKEN) creates the
first admin; every other command needs an API key with the admin scope in ACE_API_KEY.`;

/** The CLI's own name in version history and the audit log when it works on the database itself. */
export function cliActor(): string {
  return `cli (${userInfo().username})`;
}

/** The context of the CLI on its own database: the local operator, who may do anything. */
export function cliContext(db: Db): Context {
  return contextFor(db, { kind: "local", name: cliActor() });
}

/** Headers for the CLI's calls to a running server: the API key in ACE_API_KEY, if any (an input of the CLI, like ACE_ADMIN_PASSWORD, not a setting of the app). */
export function cliServerHeaders(): Record<string, string> {
  const key = process.env.ACE_API_KEY?.trim();
  return key ? { authorization: `Bearer ${key}` } : {};
}

export function isAccountsCommand(command: string | undefined): boolean {
  return command === "user" || command === "apikey";
}

interface AccountsBackend {
  describe: string;
  viaServer: boolean;
  createUser(input: { email: string; name: string; role: Role; password: string }): Promise<SignedIn>;
  setupFirstAdmin(input: { email: string; name: string; password: string; setupToken: string }): Promise<SignedIn>;
  listKeys(): Promise<ApiKeyListItem[]>;
  createKey(input: CreateApiKeyInput): Promise<CreatedApiKey>;
  revokeKey(keyId: string): Promise<{ revokedAt: Date }>;
  listPlaybooks(): Promise<PlaybookListItem[]>;
  close(): Promise<void>;
}

function serverBackend(url: string): AccountsBackend {
  const client = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: new URL("/api/trpc", url).toString(), transformer: superjson, headers: cliServerHeaders() })],
  });
  return {
    describe: `the ACE Studio server at ${url}`,
    viaServer: true,
    createUser: (input) => client.users.create.mutate(input),
    setupFirstAdmin: (input) => client.auth.setup.mutate(input),
    listKeys: () => client.apiKeys.list.query(),
    createKey: (input) => client.apiKeys.create.mutate(input),
    revokeKey: (keyId) => client.apiKeys.revoke.mutate({ keyId }),
    listPlaybooks: () => client.playbook.list.query(),
    close: async () => undefined,
  };
}

async function openBackend(server: string | undefined): Promise<AccountsBackend> {
  if (server) return serverBackend(server);
  const config = getEnv().database;
  if (config.kind === "pglite") {
    const holder = readLiveLock(config.dataDir);
    if (holder?.url) return serverBackend(holder.url);
  }
  let handle: DatabaseHandle;
  try {
    handle = await openDatabase(config);
  } catch (error) {
    if (error instanceof DatabaseBusyError)
      throw new AppError("BUSY", `${error.message}\nOr pass --server <url> to go through a running ACE Studio.`);
    throw error;
  }
  const caller = createCaller(cliContext(handle.db));
  return {
    describe: config.kind === "pglite" ? `the embedded database in ${config.dataDir}` : "PostgreSQL (DATABASE_URL)",
    viaServer: false,
    createUser: (input) => caller.users.create(input),
    setupFirstAdmin: (input) => caller.auth.setup(input),
    listKeys: () => caller.apiKeys.list(),
    createKey: (input) => caller.apiKeys.create(input),
    revokeKey: (keyId) => caller.apiKeys.revoke({ keyId }),
    listPlaybooks: () => caller.playbook.list(),
    close: () => handle.close(),
  };
}

/** Says what to do when a running server refuses the CLI for want of credentials. */
function explainRefusal(error: unknown, backend: AccountsBackend): never {
  if (backend.viaServer && error instanceof TRPCClientError) {
    const code = (error.data as { code?: string } | undefined)?.code;
    if (code === "UNAUTHORIZED" || code === "FORBIDDEN") {
      throw new AppError(
        code,
        `${error.message}\n${backend.describe} requires sign-in. Create the first admin with --setup-token <the token it printed at start> ` +
          "(or ACE_SETUP_TOKEN); for everything else set ACE_API_KEY to a key with the admin scope, or stop the server and run this again.",
      );
    }
  }
  throw error;
}

// ---- Passwords from the environment or stdin ---------------------------------------------------

async function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  try {
    return await new Promise<string>((resolve, reject) => {
      let text = "";
      const onData = (chunk: string) => {
        for (const char of chunk) {
          if (char === "\r" || char === "\n") {
            stdin.off("data", onData);
            process.stderr.write("\n");
            resolve(text);
            return;
          }
          if (char === "\u0003") {
            stdin.off("data", onData);
            reject(new AppError("INVALID_INPUT", "Cancelled."));
            return;
          }
          if (char === "\u007f" || char === "\b") text = text.slice(0, -1);
          else text += char;
        }
      };
      stdin.on("data", onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
  }
}

async function readPassword(): Promise<string> {
  const fromEnv = process.env.ACE_ADMIN_PASSWORD;
  if (fromEnv) return fromEnv;
  if (process.stdin.isTTY) {
    const first = await readHidden(`Password (at least ${PASSWORD_MIN_LENGTH} characters, not a common one): `);
    const again = await readHidden("The same password again: ");
    if (first !== again) throw new AppError("INVALID_INPUT", "The two passwords differ. Nothing was created.");
    return first;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  const password = Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
  if (!password) throw new AppError("INVALID_INPUT", "No password: set ACE_ADMIN_PASSWORD or pipe the password on stdin.");
  return password;
}

// ---- Commands -------------------------------------------------------------------------------------

async function userCreate(
  backend: AccountsBackend,
  values: { email?: string; name?: string; admin?: boolean; role?: string; "setup-token"?: string },
): Promise<void> {
  if (!values.email) throw new AppError("INVALID_INPUT", `"user create" needs --email <address>.\n\n${ACCOUNTS_USAGE}`);
  if (values.admin && values.role && values.role !== "admin") throw new AppError("INVALID_INPUT", "Choose --admin or --role, not both.");
  const role = values.admin ? "admin" : values.role;
  if (!role || !(ROLES as readonly string[]).includes(role)) {
    throw new AppError("INVALID_INPUT", `"user create" needs --admin or --role ${ROLES.join("|")}.`);
  }
  const password = await readPassword();
  const setupToken = values["setup-token"] ?? getAuthSettings().setupToken ?? undefined;
  const input = { email: values.email, name: values.name ?? "", password };
  let user: SignedIn;
  try {
    user =
      setupToken && role === "admin" && backend.viaServer
        ? await backend.setupFirstAdmin({ ...input, setupToken })
        : await backend.createUser({ ...input, role: role as Role });
  } catch (error) {
    explainRefusal(error, backend);
  }
  console.error(`Created ${user.role} ${user.email} in ${backend.describe}. They sign in with this email and the password given.`);
}

function parseScopes(text: string | undefined): ApiScope[] {
  if (!text)
    throw new AppError(
      "INVALID_INPUT",
      `"apikey create" needs --scopes, e.g. --scopes context:read,traces:write. Scopes: ${API_SCOPES.join(", ")}.`,
    );
  const scopes = text
    .split(",")
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !(API_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0)
    throw new AppError(
      "INVALID_INPUT",
      `Unknown ${pluralWord(unknown.length, "scope")} ${unknown.join(", ")}. Scopes: ${API_SCOPES.join(", ")}.`,
    );
  return scopes as ApiScope[];
}

function wholeNumber(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new AppError("INVALID_INPUT", `${flag} must be a whole number of at least 1, got "${value}".`);
  return Number(value);
}

async function apikeyCreate(
  backend: AccountsBackend,
  values: { name?: string; scopes?: string; playbook?: string[]; expires?: string; "rate-limit"?: string },
): Promise<void> {
  if (!values.name) throw new AppError("INVALID_INPUT", `"apikey create" needs --name <what uses it>.\n\n${ACCOUNTS_USAGE}`);
  const scopes = parseScopes(values.scopes);
  let playbooks: "all" | string[] = "all";
  try {
    if (values.playbook?.length) {
      const known = await backend.listPlaybooks();
      playbooks = values.playbook.map((wanted) => {
        const found = known.find((playbook) => playbook.name === wanted || playbook.id === wanted);
        if (!found) throw new AppError("NOT_FOUND", `There is no playbook named "${wanted}". See the names with: npm run ace -- list`);
        return found.id;
      });
    }
    const created = await backend.createKey({
      name: values.name,
      scopes,
      playbooks,
      expiresInDays: wholeNumber(values.expires, "--expires"),
      rateLimitPerMinute: wholeNumber(values["rate-limit"], "--rate-limit"),
    });
    console.error(`Created API key "${created.name}" (${created.preview}) in ${backend.describe} with ${scopes.join(", ")}.`);
    console.error("It is shown only this once; keep it in a secret store. Agents send it as Authorization: Bearer <key>.");
    process.stdout.write(`${created.secret}\n`);
  } catch (error) {
    explainRefusal(error, backend);
  }
}

async function apikeyList(backend: AccountsBackend): Promise<void> {
  let keys: ApiKeyListItem[];
  try {
    keys = await backend.listKeys();
  } catch (error) {
    explainRefusal(error, backend);
  }
  if (keys.length === 0) {
    console.log(`No API keys yet in ${backend.describe}. Create one: npm run ace -- apikey create --name <n> --scopes <a,b>`);
    return;
  }
  const rows = keys.map((key) => [
    key.id,
    key.name,
    key.preview,
    key.scopes.join(","),
    key.playbooks === null ? "all" : key.playbooks.map((playbook) => playbook.name ?? playbook.id).join(","),
    key.status,
    key.lastUsedAt ? key.lastUsedAt.toISOString() : "never",
    creatorLabel(key.creator),
  ]);
  printTable(["ID", "NAME", "KEY", "SCOPES", "PLAYBOOKS", "STATUS", "LAST USED", "CREATED BY"], rows);
}

async function apikeyRevoke(backend: AccountsBackend, target: string | undefined): Promise<void> {
  if (!target) throw new AppError("INVALID_INPUT", `"apikey revoke" needs the key's id (see npm run ace -- apikey list).`);
  try {
    const keys = await backend.listKeys();
    const key = keys.find((candidate) => candidate.id === target || candidate.preview.startsWith(`${target.replace(/_$/, "")}_`));
    if (!key) throw new AppError("NOT_FOUND", `There is no API key "${target}". See the ids with: npm run ace -- apikey list`);
    const { revokedAt } = await backend.revokeKey(key.id);
    console.error(`Revoked API key "${key.name}" (${key.preview}) at ${revokedAt.toISOString()}; requests with it now get 401.`);
  } catch (error) {
    explainRefusal(error, backend);
  }
}

/** Runs `user …` or `apikey …`; returns the exit code. Errors are thrown for ace.ts to print. */
export async function runAccountsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      name: { type: "string" },
      admin: { type: "boolean" },
      role: { type: "string" },
      "setup-token": { type: "string" },
      scopes: { type: "string" },
      playbook: { type: "string", multiple: true },
      expires: { type: "string" },
      "rate-limit": { type: "string" },
      server: { type: "string" },
      // Read by ace.ts when it prints an error.
      debug: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [group, action, target] = positionals;
  const command = `${group} ${action ?? ""}`.trim();
  if (values.help || !["user create", "apikey create", "apikey list", "apikey revoke"].includes(command)) {
    if (values.help) {
      console.log(ACCOUNTS_USAGE);
      return 0;
    }
    console.error(`Unknown command "${command}".\n\n${ACCOUNTS_USAGE}`);
    return 2;
  }
  const backend = await openBackend(values.server);
  try {
    if (command === "user create") await userCreate(backend, values);
    if (command === "apikey create") await apikeyCreate(backend, values);
    if (command === "apikey list") await apikeyList(backend);
    if (command === "apikey revoke") await apikeyRevoke(backend, target);
    return 0;
  } finally {
    await backend.close();
  }
}
