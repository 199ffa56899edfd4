// Test helpers: seed data through the tRPC HTTP API (not the UI), and read the fixtures.
import { createTRPCClient, httpLink } from "@trpc/client";
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import superjson from "superjson";
import type { AppRouter } from "../server/trpc/root";

const BASE_URL = "http://127.0.0.1:3100";

export const api = createTRPCClient<AppRouter>({
  links: [httpLink({ url: `${BASE_URL}/api/trpc`, transformer: superjson })],
});

/** The published playbooks in ../shared/fixtures (relative to the repository root). */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`../../shared/fixtures/playbooks/${name}`, import.meta.url));
}

export const APPWORLD_TRAINED = fixturePath("ace-appworld__appworld_offline_trained_no_gt_playbook.txt");

/** Imports a fixture as a new playbook with a unique name; returns its id. */
export async function seedPlaybook(file: string, name = `${basename(file)} ${Date.now()}`): Promise<string> {
  const result = await api.playbook.import.mutate({
    content: readFileSync(file, "utf8"),
    fileName: basename(file),
    target: { kind: "new", name },
  });
  return result.playbookId;
}

/** Section names and bullet ids of an ACE text playbook, in file order (for assertions). */
export function readAcePlaybook(file: string): { sections: string[]; ids: string[]; bySection: Map<string, string[]> } {
  const bySection = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const header = /^## (.*)$/.exec(line);
    if (header) {
      current = [];
      bySection.set(header[1]!, current);
      continue;
    }
    const bullet = /^\[([^\]]+)\]/.exec(line);
    if (bullet && current) current.push(bullet[1]!);
  }
  return { sections: [...bySection.keys()], ids: [...bySection.values()].flat(), bySection };
}
