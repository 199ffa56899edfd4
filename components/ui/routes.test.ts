import { describe, expect, it } from "vitest";
import { bulletHref, historyHref, runHref, traceHref, versionHref } from "./routes";

describe("routes", () => {
  it("opens a bullet's sheet on its playbook page, with the id escaped", () => {
    expect(bulletHref("p1", "str-00001")).toBe("/playbooks/p1?bullet=str-00001");
    expect(bulletHref("p1", "a b&c")).toBe("/playbooks/p1?bullet=a%20b%26c");
  });

  it("links a playbook's history to the latest change, or to a pair of versions", () => {
    expect(historyHref("p1")).toBe("/playbooks/p1/history");
    expect(historyHref("p1", { to: 5 })).toBe("/playbooks/p1/history?to=5");
    expect(historyHref("p1", { from: 3, to: 5 })).toBe("/playbooks/p1/history?from=3&to=5");
    expect(versionHref("p1", 4)).toBe("/playbooks/p1/history/4");
  });

  it("links a trace and a run by id", () => {
    expect(traceHref("t1")).toBe("/traces/t1");
    expect(runHref("r1")).toBe("/runs/r1");
  });
});
