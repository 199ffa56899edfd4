// Recall on the committed attack fixture and false positives on every bullet of the test playbooks
// and the demo seed, the figures the injection check is held to.
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parsePlaybook } from "../formats";
import { detectPromptInjection, INJECTION_KINDS } from "../safety";
import { PLAYBOOK_FIXTURES_DIR } from "@/server/testing/playbook-files";

interface Attack {
  id: string;
  language: string;
  kind: (typeof INJECTION_KINDS)[number];
  obfuscation: string;
  text: string;
}

const ROOT = path.resolve(PLAYBOOK_FIXTURES_DIR, "..", "..", "..");
const FIXTURE = path.join(ROOT, "server", "testing", "injection", "attacks.json");
const SEED = path.join(ROOT, "prisma", "seed");
const LANGUAGES = ["en", "zh", "hi", "es", "fr", "ar", "bn", "pt", "ru", "ja", "de"];
const PAYLOAD_KINDS = ["instruction_override", "role_marker", "data_exfiltration", "secret_request", "policy_override"];

const attacks: Attack[] = (JSON.parse(readFileSync(FIXTURE, "utf8")) as { attacks: Attack[] }).attacks;

function playbookFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return playbookFiles(file);
    return /\.(txt|json)$/u.test(name) && !name.endsWith(".peer.json") ? [file] : [];
  });
}

function benignBullets(): { where: string; content: string }[] {
  return [...playbookFiles(PLAYBOOK_FIXTURES_DIR), ...playbookFiles(SEED)].flatMap((file) => {
    const { document } = parsePlaybook(readFileSync(file, "utf8"), "auto");
    return document.sections.flatMap((section) =>
      section.bullets.map((bullet) => ({ where: `${path.relative(ROOT, file)} [${bullet.id}]`, content: bullet.content })),
    );
  });
}

const percent = (share: number) => `${(100 * share).toFixed(1)} %`;

function recallOf(list: readonly Attack[]): { share: number; missed: string[] } {
  const missed = list.filter((attack) => detectPromptInjection(attack.text).length === 0).map((attack) => `${attack.id}: ${attack.text}`);
  return { share: (list.length - missed.length) / list.length, missed };
}

describe("the attack fixture", () => {
  it("holds at least 150 attacks covering every payload kind in every language, with mixed obfuscations", () => {
    expect(attacks.length).toBeGreaterThanOrEqual(150);
    expect(new Set(attacks.map((attack) => attack.id)).size).toBe(attacks.length);
    for (const language of LANGUAGES) {
      for (const kind of PAYLOAD_KINDS) {
        expect(
          attacks.some((attack) => attack.language === language && attack.kind === kind),
          `${language} ${kind}`,
        ).toBe(true);
      }
    }
    const obfuscations = new Set(attacks.map((attack) => attack.obfuscation));
    for (const obfuscation of ["none", "leetspeak", "fullwidth", "zero_width", "letter_spacing", "base64", "url_encoding", "confusables"]) {
      expect(obfuscations).toContain(obfuscation);
    }
  });
});

describe("injection check on the fixture", () => {
  it("finds at least 90 % of the attacks and flags at most 1 % of the benign bullets", () => {
    const recall = recallOf(attacks);
    const heldOut = recallOf(attacks.filter((attack) => attack.id.startsWith("held-")));
    const benign = benignBullets();
    const flagged = benign.filter((bullet) => detectPromptInjection(bullet.content).length > 0).map((bullet) => bullet.where);
    const falsePositives = flagged.length / benign.length;
    console.log(
      `injection check: recall ${percent(recall.share)} (${attacks.length - recall.missed.length}/${attacks.length}), ` +
        `held-out recall ${percent(heldOut.share)}, ` +
        `false positives ${percent(falsePositives)} (${flagged.length}/${benign.length} bullets)`,
    );
    if (recall.missed.length > 0) console.log(`missed:\n${recall.missed.join("\n")}`);
    if (flagged.length > 0) console.log(`flagged benign bullets:\n${flagged.join("\n")}`);
    expect(benign.length).toBeGreaterThan(500);
    expect(recall.share).toBeGreaterThanOrEqual(0.9);
    expect(falsePositives).toBeLessThanOrEqual(0.01);
  });

  it("names the attack's own kind for at least 90 % of the attacks it finds", () => {
    const found = attacks
      .map((attack) => ({ attack, findings: detectPromptInjection(attack.text) }))
      .filter(({ findings }) => findings.length > 0);
    const rightKind = found.filter(({ attack, findings }) => findings.some((finding) => finding.kind === attack.kind));
    expect(rightKind.length / found.length).toBeGreaterThanOrEqual(0.9);
  });
});
