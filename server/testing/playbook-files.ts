// The published playbooks the tests and the benchmark read, kept in the repository
// (server/testing/playbooks, provenance in its README) so a fresh clone runs everything.
import path from "node:path";
import { fileURLToPath } from "node:url";

export const PLAYBOOK_FIXTURES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "playbooks");

/** The path of one fixture file by its name, e.g. `kayba__skillbook_20260318_150822.json`. */
export function playbookFixture(name: string): string {
  return path.join(PLAYBOOK_FIXTURES_DIR, name);
}
