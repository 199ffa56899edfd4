import { describe, expect, it } from "vitest";
import { parseAceText } from "@/server/ace/formats/ace-text";
import { classifyBullet, type BulletSignal } from "@/server/ace/signals";
import { seededRandom, syntheticPlaybook } from "./synthetic";

describe("syntheticPlaybook", () => {
  const playbook = syntheticPlaybook({ bullets: 2_000 });
  const document = parseAceText(playbook.text, "ace");
  const bullets = document.sections.flatMap((section) => section.bullets);

  it("gives the same text for the same seed, and other text for another", () => {
    expect(syntheticPlaybook({ bullets: 2_000 }).text).toBe(playbook.text);
    expect(syntheticPlaybook({ bullets: 2_000, seed: 7 }).text).not.toBe(playbook.text);
  });

  it("is ACE text with counters: twelve sections, every bullet parsed", () => {
    expect(document.sections).toHaveLength(12);
    expect(document.sections.map((section) => section.name)).toEqual(playbook.sectionNames);
    expect(bullets).toHaveLength(2_000);
    expect(bullets.every((bullet) => bullet.counters !== null)).toBe(true);
  });

  it("writes bullets of 60 to 400 characters", () => {
    const lengths = bullets.map((bullet) => bullet.content.length);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(60);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(400);
  });

  it("covers every counter signal and counts them right", () => {
    const counted: Record<BulletSignal, number> = { high_performing: 0, problematic: 0, unused: 0, in_use: 0, untracked: 0 };
    for (const bullet of bullets) {
      counted[classifyBullet({ helpful: bullet.counters?.helpful ?? 0, harmful: bullet.counters?.harmful ?? 0, countersKnown: true })]++;
    }
    expect(counted).toEqual(playbook.signals);
    for (const signal of ["high_performing", "problematic", "unused", "in_use"] as const) expect(counted[signal]).toBeGreaterThan(0);
  });

  it("names the first bullet in reading order and a search word that matches some bullets", () => {
    expect(document.sections[0]?.bullets[0]?.id).toBe(playbook.firstBulletId);
    const matches = bullets.filter((bullet) => bullet.content.toLowerCase().includes(playbook.searchWord)).length;
    expect(matches).toBeGreaterThan(0);
    expect(matches).toBeLessThan(bullets.length / 2);
  });
});

describe("seededRandom", () => {
  it("repeats its sequence for a seed and stays in [0, 1)", () => {
    const a = seededRandom(1);
    const b = seededRandom(1);
    const values = Array.from({ length: 1_000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1_000 }, () => b()));
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
  });
});
