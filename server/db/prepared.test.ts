import { describe, expect, it } from "vitest";
import { keepsStatement, statementNames } from "./prepared";

describe("which statements are kept", () => {
  it("keeps what PostgreSQL plans, with parameters of the sizes a curation delta has", () => {
    expect(keepsStatement('SELECT 1 FROM "Bullet" WHERE id = $1', ["x"])).toBe(true);
    expect(keepsStatement("  with x AS (SELECT 1) SELECT * FROM x", [])).toBe(true);
    expect(keepsStatement("INSERT INTO t SELECT * FROM unnest($1::int[])", [Array.from({ length: 1_000 }, (_, i) => i)])).toBe(true);
  });

  it("runs unnamed DDL, settings and statements with a large array or text", () => {
    expect(keepsStatement("CREATE TABLE t (id int)", [])).toBe(false);
    expect(keepsStatement("SET LOCAL jit = off", [])).toBe(false);
    expect(keepsStatement("SELECTED", [])).toBe(false);
    expect(keepsStatement("INSERT INTO t SELECT * FROM unnest($1::int[])", [Array.from({ length: 1_001 }, (_, i) => i)])).toBe(false);
    expect(keepsStatement("UPDATE t SET x = r.x FROM json_to_recordset($1::json) AS r(x int)", ["x".repeat(64 * 1024 + 1)])).toBe(false);
  });
});

describe("statement names on PostgreSQL", () => {
  const query = (sql: string, args: unknown[] = []) => ({ sql, args });

  it("names a text at its second run and keeps the name; texts run once stay unnamed", () => {
    const name = statementNames();
    expect(name(query("SELECT 1"))).toBe("");
    expect(name(query("SELECT 2"))).toBe("");
    expect(name(query("SELECT 1"))).toBe("ace_q1");
    expect(name(query("SELECT 1"))).toBe("ace_q1");
    expect(name(query("SELECT 2"))).toBe("ace_q2");
    expect(name(query("CREATE TABLE t (id int)"))).toBe("");
    expect(name(query("CREATE TABLE t (id int)"))).toBe("");
  });

  it("a named text with a large parameter runs unnamed that once", () => {
    const name = statementNames();
    const insert = "INSERT INTO t SELECT * FROM unnest($1::int[])";
    name(query(insert, [[1]]));
    expect(name(query(insert, [[1, 2]]))).toBe("ace_q1");
    expect(name(query(insert, [Array.from({ length: 2_000 }, (_, i) => i)]))).toBe("");
    expect(name(query(insert, [[3]]))).toBe("ace_q1");
  });

  it("names at most `max` texts, each name for one text only", () => {
    const name = statementNames({ max: 2 });
    const named = ["SELECT 1", "SELECT 2", "SELECT 3"].map((sql) => {
      name(query(sql));
      return name(query(sql));
    });
    expect(named).toEqual(["ace_q1", "ace_q2", ""]);
    expect(name(query("SELECT 3"))).toBe("");
    expect(name(query("SELECT 1"))).toBe("ace_q1");
  });
});
