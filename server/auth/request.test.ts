import { describe, expect, it } from "vitest";
import { AddressSet } from "./network";
import { PEER_HEADER, sealPeer } from "./peer";
import { readRequestInfo } from "./request";

const none = { trustedProxies: new AddressSet([]) };

describe("where a request came from", () => {
  it("is local when stamped with a loopback peer and no forwarding header", () => {
    const info = readRequestInfo(
      new Headers({ [PEER_HEADER]: sealPeer({ remote: "::ffff:127.0.0.1", listen: "127.0.0.1", forwarded: false }) }),
      none,
    );
    expect(info).toMatchObject({ local: true, loopbackBound: true, ip: "127.0.0.1" });
  });

  it("is not local when it came through a proxy, even from loopback", () => {
    const headers = new Headers({
      [PEER_HEADER]: sealPeer({ remote: "127.0.0.1", listen: "127.0.0.1", forwarded: true }),
      "x-forwarded-for": "198.51.100.7",
    });
    expect(readRequestInfo(headers, none)).toMatchObject({ local: false, loopbackBound: true, ip: "127.0.0.1" });
    expect(readRequestInfo(headers, { trustedProxies: new AddressSet(["127.0.0.1"]) }).ip).toBe("198.51.100.7");
  });

  it("knows a server listening on every interface is not loopback-bound", () => {
    const info = readRequestInfo(new Headers({ [PEER_HEADER]: sealPeer({ remote: "127.0.0.1", listen: "::", forwarded: false }) }), none);
    expect(info).toMatchObject({ local: true, loopbackBound: false });
  });

  it("believes no stamp it did not seal: a forged one makes the request remote", () => {
    const forged = new Headers({ [PEER_HEADER]: "guessed-seal 127.0.0.1 127.0.0.1 0", "x-forwarded-for": "127.0.0.1" });
    expect(readRequestInfo(forged, none)).toMatchObject({ local: false, loopbackBound: false });
  });

  it("treats a request built in this process (a test calling a handler) as local; anything received without a stamp as remote", () => {
    expect(readRequestInfo(new Headers(), none)).toMatchObject({ local: true, loopbackBound: true, ip: null });
    expect(readRequestInfo(new Headers({ host: "localhost:3000" }), none)).toMatchObject({ local: false, loopbackBound: false });
    expect(readRequestInfo(new Headers({ "x-forwarded-for": "127.0.0.1" }), none)).toMatchObject({ local: false, loopbackBound: false });
  });

  it("keeps a well-formed request id and makes one otherwise; HTTPS from X-Forwarded-Proto", () => {
    expect(readRequestInfo(new Headers({ "x-request-id": "abc-123-def" }), none).id).toBe("abc-123-def");
    expect(readRequestInfo(new Headers({ "x-request-id": "<script>" }), none).id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readRequestInfo(new Headers({ "x-forwarded-proto": "https" }), none).https).toBe(true);
  });
});
