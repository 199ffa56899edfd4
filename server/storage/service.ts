// The storage report: what the database holds, per table and per playbook, so an admin can see
// where the space goes and what retention will free.
import type { Db } from "@/server/db/client";
import * as repo from "./repository";
import type { PlaybookStorage, StorageReport } from "./schemas";

export async function storageReport(db: Db): Promise<StorageReport> {
  const [sizes, perPlaybook, names, database] = await Promise.all([
    repo.findTableSizes(db),
    repo.findPlaybookRows(db),
    repo.findPlaybookNames(db),
    repo.databaseBytes(db),
  ]);
  const rows = await repo.countRows(
    db,
    sizes.map((size) => size.table),
  );
  const tables = sizes.map((size) => ({ ...size, rows: rows.get(size.table) ?? 0 }));
  const playbooks = names.map((playbook): PlaybookStorage => {
    const own = perPlaybook.filter((row) => row.playbookId === playbook.id).sort((a, b) => b.bytes - a.bytes);
    return {
      playbookId: playbook.id,
      name: playbook.name,
      rows: own.reduce((sum, row) => sum + row.rows, 0),
      bytes: own.reduce((sum, row) => sum + row.bytes, 0),
      tables: own.map(({ table, rows: count, bytes }) => ({ table, rows: count, bytes })),
    };
  });
  playbooks.sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  return {
    databaseBytes: database ?? tables.reduce((sum, table) => sum + table.bytes, 0),
    tables,
    playbooks,
    measuredAt: new Date(),
  };
}
