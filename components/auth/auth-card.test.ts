import { describe, expect, it } from "vitest";
import { safeNext } from "./auth-card";

// Each of these, handed to a browser as a location, leaves the site (or runs script) in some browser.
const ATTACKS = [
  "/\t/evil-host",
  "/%09/evil-host",
  "/%2509/evil-host",
  "/\n/evil-host",
  "/\r/evil-host",
  "/%0a/evil-host",
  "/\u0000/evil-host",
  "\\\\evil",
  "/\\evil",
  "/%5cevil",
  "/%5Cevil",
  "//evil",
  "//evil.example/path",
  "/%2f/evil",
  "/%2F%2Fevil",
  "https://evil.example",
  "HTTPS://evil.example/playbooks",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(document.cookie)",
  "java\tscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  " /playbooks",
  "\t//evil",
  "evil.example",
  "@evil.example",
  "",
];

describe("where signing in leads", () => {
  it.each(ATTACKS)("refuses %j and goes to the home page", (next) => {
    expect(safeNext(next)).toBe("/playbooks");
  });

  it("goes home when no address was given", () => {
    expect(safeNext(null)).toBe("/playbooks");
    expect(safeNext(undefined)).toBe("/playbooks");
  });

  it.each([
    ["/runs", "/runs"],
    ["/playbooks/pb_1/deltas?status=pending#d_2", "/playbooks/pb_1/deltas?status=pending#d_2"],
    ["/search?q=a%20b", "/search?q=a%20b"],
    ["/playbooks/../settings", "/settings"],
  ])("keeps a path of this site: %j", (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });
});
