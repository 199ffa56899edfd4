// What the Storage page shows: rows and bytes per table and per playbook. The one file of
// server/storage that client code may import.

export interface TableStorage {
  table: string;
  rows: number;
  /** The table with its indexes and TOAST data (pg_total_relation_size). */
  bytes: number;
  indexBytes: number;
}

/** A playbook's rows in one table, and their size as stored (pg_column_size of each row, TOAST included). */
export interface PlaybookTableStorage {
  table: string;
  rows: number;
  bytes: number;
}

export interface PlaybookStorage {
  playbookId: string;
  name: string;
  rows: number;
  bytes: number;
  tables: PlaybookTableStorage[];
}

export interface StorageReport {
  /** The whole database (pg_database_size), or the sum of the tables where that cannot be read. */
  databaseBytes: number;
  tables: TableStorage[];
  playbooks: PlaybookStorage[];
  measuredAt: Date;
}
