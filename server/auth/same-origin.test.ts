import { describe, expect, it } from "vitest";
import { crossSiteRefusal } from "./same-origin";

const headers = (values: Record<string, string>) => new Headers(values);

describe("cross-site request refusal", () => {
  it("lets reads through whatever their origin", () => {
    expect(crossSiteRefusal("GET", headers({ "sec-fetch-site": "cross-site", origin: "https://evil.example" }))).toBeNull();
  });

  it("refuses changes a browser says come from another site, and names it", () => {
    expect(crossSiteRefusal("POST", headers({ "sec-fetch-site": "cross-site", origin: "https://evil.example" }))).toMatch(
      /another site \(https:\/\/evil\.example\)/,
    );
    expect(
      crossSiteRefusal("POST", headers({ "sec-fetch-site": "same-site", origin: "http://localhost:5173", host: "localhost:3000" })),
    ).not.toBeNull();
  });

  it("accepts the studio's own pages", () => {
    expect(
      crossSiteRefusal("POST", headers({ "sec-fetch-site": "same-origin", origin: "http://localhost:3000", host: "localhost:3000" })),
    ).toBeNull();
  });

  it("compares Origin with the host when the browser sends no Sec-Fetch-Site", () => {
    expect(crossSiteRefusal("POST", headers({ origin: "http://localhost:3000", host: "localhost:3000" }))).toBeNull();
    expect(
      crossSiteRefusal(
        "POST",
        headers({ origin: "https://ace.example.com", host: "127.0.0.1:3000", "x-forwarded-host": "ace.example.com" }),
      ),
    ).toBeNull();
    expect(crossSiteRefusal("POST", headers({ origin: "http://localhost:4000", host: "localhost:3000" }))).not.toBeNull();
    expect(crossSiteRefusal("POST", headers({ origin: "null", host: "localhost:3000" }))).not.toBeNull();
  });

  it("lets requests without browser headers through (the CLI, curl, agents)", () => {
    expect(crossSiteRefusal("POST", headers({ host: "localhost:3000" }))).toBeNull();
  });
});
