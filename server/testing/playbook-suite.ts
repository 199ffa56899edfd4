// The hooks shared by the integration tests that work on one imported playbook through tRPC and the
// route handlers: a database for the suite that the routes use too, and before each test that
// database emptied with SMALL_PLAYBOOK imported again as a new playbook.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { callerAs, type Acting } from "@/server/trpc/callers";
import { openTestDatabase, type TestDatabase, type TestEngine } from "./db";
import { SMALL_PLAYBOOK } from "./fixtures";

export interface PlaybookSuite {
  /** The suite's database, served to the route handlers (serveDb) until the suite ends. */
  readonly database: TestDatabase;
  /** A tRPC caller acting as the suite's `as`; it imported the playbook. */
  readonly caller: ReturnType<typeof callerAs>;
  /** The playbook imported before the running test. */
  readonly playbookId: string;
}

/**
 * Registers beforeAll, afterAll and beforeEach in the calling describe block and returns their
 * results, to be read inside tests and hooks (reading one earlier throws).
 * `as`: who the caller acts as, callerAs's arguments, e.g. ["admin", "ada"] or ["local"].
 */
export function playbookSuite(engine: TestEngine, { name, as }: { name: string; as: [Acting, string?] }): PlaybookSuite {
  let database: TestDatabase | undefined;
  let caller: PlaybookSuite["caller"] | undefined;
  let playbookId: string | undefined;

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve: true });
    caller = callerAs(database.db, ...as);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await ready(database, "database").reset();
    ({ playbookId } = await ready(caller, "caller").playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name },
    }));
  });

  return {
    get database() {
      return ready(database, "database");
    },
    get caller() {
      return ready(caller, "caller");
    },
    get playbookId() {
      return ready(playbookId, "playbookId");
    },
  };
}

function ready<T>(value: T | undefined, field: keyof PlaybookSuite): T {
  if (value === undefined) throw new Error(`playbookSuite: ${field} is set by its hooks; read it inside a test or a hook`);
  return value;
}
