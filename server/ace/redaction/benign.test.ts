// False positives: every bullet of the test playbooks and the demo seed is text people wrote for
// agents, with ids, versions, dates, code and URLs, and none of it holds a secret or personal data.
// With every built-in kind on, nothing in it may be redacted.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlaybook } from "@/server/ace/formats";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";
import { BUILT_IN_KINDS, createRedactor, redactText, type RedactionCounts } from "./detectors";

const SEED_DIR = path.join(process.cwd(), "prisma", "seed");

/** The playbook fixtures under a folder: the files a peer's reading (<file>.peer.json) sits beside. */
function fixtureFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return fixtureFiles(file);
    return name.endsWith(".peer.json") && !name.endsWith(".peer.peer.json") ? [file.slice(0, -".peer.json".length)] : [];
  });
}

/** The demo playbooks: every file of prisma/seed but its README. */
const seedFiles = () =>
  readdirSync(SEED_DIR)
    .filter((name) => name !== "README.md")
    .map((name) => path.join(SEED_DIR, name));

function bulletsOf(file: string): { file: string; id: string; content: string }[] {
  const { document } = parsePlaybook(readFileSync(file, "utf8"), "auto");
  return document.sections.flatMap((section) =>
    section.bullets.map((bullet) => ({ file: path.relative(process.cwd(), file), id: bullet.id, content: bullet.content })),
  );
}

describe("benign text", () => {
  const files = [...fixtureFiles(PLAYBOOK_FIXTURES_DIR), ...seedFiles()].filter((file) =>
    statSync(file, { throwIfNoEntry: false })?.isFile(),
  );
  const bullets = files.flatMap(bulletsOf);

  it("reads the bullets of every test playbook and demo seed file", () => {
    expect(files.map((file) => path.basename(file))).toEqual(
      expect.arrayContaining(["customer-service.kayba.json", "appworld-initial.txt", "kayba__skillbook_20260318_150822.json"]),
    );
    expect(new Set(files.map((file) => path.dirname(file))).size).toBeGreaterThanOrEqual(4);
    expect(bullets.length).toBeGreaterThan(500);
  });

  it("redacts nothing in any bullet of the test playbooks and the demo seed with every built-in kind on, but the one real email address", () => {
    const redactor = createRedactor(BUILT_IN_KINDS);
    const redacted = bullets.flatMap((bullet) => {
      const counts: RedactionCounts = {};
      const text = redactText(bullet.content, redactor, counts);
      return text === bullet.content ? [] : [{ file: bullet.file, id: bullet.id, counts, text }];
    });
    // AppWorld's trained playbook quotes its simulated user's address: an email the opt-in email kind should find.
    expect(redacted).toEqual([
      {
        file: "server/testing/playbooks/ace-appworld__appworld_offline_trained_no_gt_playbook.txt",
        id: "api-00017",
        counts: { email: 1 },
        text: expect.stringContaining("(e.g., user_email='[REDACTED:email]')"),
      },
    ]);
  });
});
