// The hooks shared by the integration tests: a database for the suite (served to the route handlers
// when asked), emptied before each test, with a tRPC caller; and for the tests that work on one
// imported playbook, SMALL_PLAYBOOK imported again before each test as a new playbook.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { callerAs, type Acting } from "@/server/trpc/callers";
import { openTestDatabase, type TestDatabase, type TestEngine } from "./db";
import { SMALL_PLAYBOOK } from "./fixtures";

export interface DatabaseSuite {
  /** The suite's database; with `serve`, served to the route handlers (serveDb) until the suite ends. */
  readonly database: TestDatabase;
  /** A tRPC caller acting as the suite's `as`. */
  readonly caller: ReturnType<typeof callerAs>;
}

export interface PlaybookSuite extends DatabaseSuite {
  /** The playbook imported before the running test. */
  readonly playbookId: string;
}

/**
 * Registers beforeAll, afterAll and beforeEach in the calling describe block and returns their
 * results, to be read inside tests and hooks (reading one earlier throws).
 * `as`: who the caller acts as, callerAs's arguments, e.g. ["admin", "ada"] or ["local"].
 */
export function databaseSuite(engine: TestEngine, { as, serve = false }: { as: [Acting, string?]; serve?: boolean }): DatabaseSuite {
  let database: TestDatabase | undefined;
  let caller: DatabaseSuite["caller"] | undefined;

  beforeAll(async () => {
    database = await openTestDatabase(engine, { serve });
    caller = callerAs(database.db, ...as);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await ready(database, "database").reset();
  });

  return {
    get database() {
      return ready(database, "database");
    },
    get caller() {
      return ready(caller, "caller");
    },
  };
}

/** databaseSuite served to the routes, with SMALL_PLAYBOOK imported as `name` before each test. */
export function playbookSuite(engine: TestEngine, { name, as }: { name: string; as: [Acting, string?] }): PlaybookSuite {
  const suite = databaseSuite(engine, { as, serve: true });
  let playbookId: string | undefined;

  beforeEach(async () => {
    ({ playbookId } = await suite.caller.playbook.import({
      content: SMALL_PLAYBOOK,
      format: "ace",
      target: { kind: "new", name },
    }));
  });

  return {
    get database() {
      return suite.database;
    },
    get caller() {
      return suite.caller;
    },
    get playbookId() {
      return ready(playbookId, "playbookId");
    },
  };
}

function ready<T>(value: T | undefined, field: keyof PlaybookSuite): T {
  if (value === undefined) throw new Error(`${field} is set by the suite's hooks; read it inside a test or a hook`);
  return value;
}
