// Where things are, resolved from this file so the bench runs from any working directory.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { playbookFixture } from "@/server/testing/playbook-files";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const REPORT_FILE = path.join(REPO_ROOT, "BENCHMARKS.md");
export const APPWORLD_FIXTURE = playbookFixture("ace-appworld__appworld_offline_trained_no_gt_playbook.txt");

/** The version field of an installed package's package.json (not every package exports that file). */
export function installedVersionPath(packageName: string): string {
  return path.join(REPO_ROOT, "node_modules", packageName, "package.json");
}
