// A Prisma client that records every SQL statement it sends, on a test database's connection: for
// tests that bound the round trips of a request (a 304 must not read the playbook's bullets).
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { Db } from "../db/client";
import { PrismaClient } from "../db/generated/client";
import type { TestDatabase } from "./db";

export interface RecordingClient {
  db: Db;
  /** The statements sent since the last clear(), in order. */
  statements: string[];
  clear(): void;
  close(): Promise<void>;
}

function recordQueries<T extends SqlDriverAdapter | Transaction>(target: T, statements: string[]): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "queryRaw" || property === "executeRaw") {
        return (query: SqlQuery) => {
          statements.push(query.sql);
          return (value as (query: SqlQuery) => unknown).call(object, query);
        };
      }
      if (property === "startTransaction") {
        return async (...args: unknown[]) =>
          recordQueries((await (value as (...a: unknown[]) => Promise<Transaction>).apply(object, args)) as Transaction, statements);
      }
      return (value as (...a: unknown[]) => unknown).bind(object);
    },
  });
}

/** A second client on the test database's connection (PGlite instance or pg pool) that records its statements. */
export function recordingClient(database: TestDatabase): RecordingClient {
  const statements: string[] = [];
  const factory: SqlMigrationAwareDriverAdapterFactory = database.handle.factory;
  const recording: SqlMigrationAwareDriverAdapterFactory = {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => recordQueries(await factory.connect(), statements),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
  const db = new PrismaClient({ adapter: recording });
  return {
    db,
    statements,
    clear: () => void statements.splice(0),
    close: () => db.$disconnect(),
  };
}
