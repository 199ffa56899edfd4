// The hooks shared by the integration tests: a database for the suite (served to the route handlers
// when asked), emptied before each test, with a tRPC caller; for the tests that work on one
// imported playbook, SMALL_PLAYBOOK imported again before each test as a new playbook; and for the
// tests of LLM calls, the project's mock OpenAI server, emptied before each test.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { forgetStructuredOutputFallbacks } from "@/server/llm/openai-provider";
import { callerAs, type Acting } from "@/server/trpc/callers";
import { openTestDatabase, type TestDatabase, type TestEngine } from "./db";
import { SMALL_PLAYBOOK } from "./fixtures";
import { aceAnswer, NO_SCRIPTED_ANSWER, startMockOpenAi, type MockOpenAi, type MockOpenAiOptions } from "./mock-openai";

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

export interface MockOpenAiSuite {
  /** The suite's mock server: before each test, no scripts or recorded requests and the mode's default answer. */
  readonly mock: MockOpenAi;
}

/**
 * The mock OpenAI server for the suite, started before it and closed after it. Before each test it
 * forgets its scripts and requests, answers unscripted chat requests as `options.mode` says again
 * (a test may have changed that), and the provider forgets which servers lacked structured outputs.
 */
export function mockOpenAiSuite(options: MockOpenAiOptions = {}): MockOpenAiSuite {
  let mock: MockOpenAi | undefined;

  beforeAll(async () => {
    mock = await startMockOpenAi(options);
  });
  afterAll(async () => {
    await mock?.close();
  });
  beforeEach(() => {
    const server = ready(mock, "mock");
    server.reset();
    server.setDefault(options.mode === "ace" ? aceAnswer : NO_SCRIPTED_ANSWER);
    forgetStructuredOutputFallbacks();
  });

  return {
    get mock() {
      return ready(mock, "mock");
    },
  };
}

function ready<T>(value: T | undefined, field: keyof PlaybookSuite | keyof MockOpenAiSuite): T {
  if (value === undefined) throw new Error(`${field} is set by the suite's hooks; read it inside a test or a hook`);
  return value;
}
