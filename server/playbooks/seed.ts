// First run: an empty database gets demo playbooks from real published ACE playbooks
// (prisma/seed/), imported the same way a user's file would be. Never seeds over existing data.
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Db } from "@/server/db/client";
import * as repo from "./repository";
import { importPlaybook } from "./import";

export const DEMO_AUTHOR = "ACE Studio (first-run demo)";

const DEMOS = [
  {
    file: "customer-service.kayba.json",
    name: "Customer service (demo)",
    agentLabel: "customer-service-agent",
    description: "A kayba skillbook learned from 30 customer-service conversations, with helpful/harmful counters.",
  },
  {
    file: "appworld-initial.txt",
    name: "AppWorld initial (demo)",
    agentLabel: "appworld-react-agent",
    description: "The hand-written starting playbook the ACE authors published for AppWorld; no counters yet.",
  },
] as const;

/** Returns the names seeded; none when the database already holds a playbook. */
export async function seedDemoPlaybooks(db: Db, seedDir = path.join(process.cwd(), "prisma", "seed")): Promise<string[]> {
  if ((await repo.countPlaybooks(db)) > 0) return [];
  const seeded: string[] = [];
  for (const demo of DEMOS) {
    const content = await readFile(path.join(/*turbopackIgnore: true*/ seedDir, demo.file), "utf8");
    const result = await importPlaybook(db, DEMO_AUTHOR, {
      content,
      format: "auto",
      fileName: demo.file,
      target: { kind: "new", name: demo.name, agentLabel: demo.agentLabel, description: demo.description },
    });
    seeded.push(result.name);
  }
  return seeded;
}
