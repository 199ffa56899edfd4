import { describe, expect, it } from "vitest";
import type { Mover } from "@/server/metrics/schemas";
import { counterRows, moverTable, topMovers } from "./counters";
import { DAYS, result } from "./test-fixtures";

const mover = (bulletId: string, helpfulChange: number, harmfulChange: number): Mover => ({
  bulletId,
  section: "s",
  content: "c",
  status: "active",
  helpful: 0,
  harmful: 0,
  helpfulChange,
  harmfulChange,
  scoreChange: helpfulChange - harmfulChange,
});

describe("counters", () => {
  it("give helpful − harmful per bucket, null before the first version", () => {
    const rows = counterRows(
      result({
        counters: [
          { start: DAYS[0]!, version: null, helpful: null, harmful: null, neutral: null },
          { start: DAYS[1]!, version: 3, helpful: 40, harmful: 12, neutral: 1 },
        ],
      }),
    );
    expect(rows.map((row) => row.score)).toEqual([null, 28]);
  });

  it("order top movers by the size of the move, then by tags, then by id", () => {
    const movers = topMovers({
      rose: [mover("b", 3, 0), mover("a", 3, 0), mover("c", 5, 1), mover("d", 4, 1), mover("z", 0, 0)],
      fell: [mover("e", 0, 2), mover("f", 1, 6), mover("g", 2, 4)],
    });
    expect(movers.rose.map((m) => m.bulletId)).toEqual(["c", "d", "a", "b"]);
    expect(movers.fell.map((m) => m.bulletId)).toEqual(["f", "g", "e"]);
  });

  it("list risers then fallers in one table, each saying which way it moved", () => {
    const table = moverTable({ rose: [mover("a", 3, 0)], fell: [mover("b", 0, 2)] }, "Movers");
    expect(table.rows.map((row) => [row.direction, row.bulletId, row.scoreChange])).toEqual([
      ["rose", "a", 3],
      ["fell", "b", -2],
    ]);
    // Only the columns' fields: a mover's status is not part of the table.
    expect(Object.keys(table.rows[0]!)).toEqual(table.columns.map((column) => column.key));
  });
});
