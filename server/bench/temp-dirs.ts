// Temp folders of a bench run carry its pid, so a later run can remove what a killed one left
// behind (`npm run` under tsx SIGKILLs a process that is busy when Ctrl-C arrives).
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isProcessAlive } from "@/server/db/lock";

const PREFIX = "ace-bench-";

export function makeTempDir(purpose: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `${PREFIX}${process.pid}-${purpose}-`));
}

/** Removes temp folders of bench runs whose process is gone; returns their names. */
export async function sweepStaleTempDirs(): Promise<string[]> {
  const stale = (await readdir(tmpdir())).filter((name) => {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isProcessAlive(pid);
  });
  await Promise.all(stale.map((name) => rm(path.join(tmpdir(), name), { recursive: true, force: true })));
  return stale;
}
