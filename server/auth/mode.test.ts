// The table of issue 11, §4: ACE_AUTH × where the server listens × whether accounts exist.
import { describe, expect, it } from "vitest";
import { accessRule } from "./mode";

describe("who must sign in", () => {
  const local = { localRequest: true };

  it("auto on loopback without accounts: no login, the local admin", () => {
    expect(accessRule({ mode: "auto", loopbackBound: true, usersExist: false, ...local })).toEqual({ localAdmin: true, gate: "open" });
  });

  it("auto on loopback with accounts: sign-in", () => {
    expect(accessRule({ mode: "auto", loopbackBound: true, usersExist: true, ...local })).toEqual({ localAdmin: false, gate: "sign-in" });
  });

  it("auto on another address behaves as on: the first-admin page, then sign-in", () => {
    expect(accessRule({ mode: "auto", loopbackBound: false, usersExist: false, ...local })).toEqual({
      localAdmin: false,
      gate: "first-admin",
    });
    expect(accessRule({ mode: "auto", loopbackBound: false, usersExist: true, ...local })).toEqual({ localAdmin: false, gate: "sign-in" });
  });

  it("auto on loopback, but through a proxy (X-Forwarded-For): not local, so the first-admin page", () => {
    expect(accessRule({ mode: "auto", loopbackBound: true, usersExist: false, localRequest: false })).toEqual({
      localAdmin: false,
      gate: "first-admin",
    });
  });

  it("on: the first-admin page without accounts, sign-in with them, even on loopback", () => {
    expect(accessRule({ mode: "on", loopbackBound: true, usersExist: false, ...local })).toEqual({
      localAdmin: false,
      gate: "first-admin",
    });
    expect(accessRule({ mode: "on", loopbackBound: true, usersExist: true, ...local })).toEqual({ localAdmin: false, gate: "sign-in" });
  });

  it("off on loopback: no login whether or not accounts exist", () => {
    expect(accessRule({ mode: "off", loopbackBound: true, usersExist: false, ...local })).toEqual({ localAdmin: true, gate: "open" });
    expect(accessRule({ mode: "off", loopbackBound: true, usersExist: true, localRequest: false })).toEqual({
      localAdmin: true,
      gate: "open",
    });
  });

  it("off on another address (start-up refuses it) falls back to on", () => {
    expect(accessRule({ mode: "off", loopbackBound: false, usersExist: true, ...local })).toEqual({ localAdmin: false, gate: "sign-in" });
  });
});
