import { describe, expect, it } from "vitest";
import { deltasIn } from "./delta-labels";
import { deltaListInput, parseReviewFilters, pendingCountInput, reviewHref, writeReviewFilters } from "./review-url";

const PLAYBOOK = "0f8fad5b-d9cb-469f-a165-70867728950e";
const DELTA = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

describe("review queue filters in the URL", () => {
  it("read the status and origin, defaulting to pending deltas of every origin", () => {
    expect(parseReviewFilters(new URLSearchParams(""))).toEqual({ status: "pending", origin: null });
    expect(parseReviewFilters(new URLSearchParams("status=auto_applied&origin=curator"))).toEqual({
      status: "auto_applied",
      origin: "curator",
    });
  });

  it("ignore unknown values, so a hand-edited link still opens a list", () => {
    expect(parseReviewFilters(new URLSearchParams("status=done&origin=robot"))).toEqual({ status: "pending", origin: null });
    expect(parseReviewFilters(new URLSearchParams("origin=Curator"))).toEqual({ status: "pending", origin: null });
  });

  it("write only what differs from the defaults, keeping other params", () => {
    const params = new URLSearchParams(`delta=${DELTA}&status=rejected&origin=person`);
    expect(writeReviewFilters(params, { status: "all", origin: "reflector" }).toString()).toBe(
      `delta=${DELTA}&status=all&origin=reflector`,
    );
    expect(writeReviewFilters(params, { status: "pending", origin: null }).toString()).toBe(`delta=${DELTA}`);
  });

  it("round-trip through search params", () => {
    const filters = { status: "applied", origin: "pruning" } as const;
    expect(parseReviewFilters(writeReviewFilters(new URLSearchParams(), filters))).toEqual(filters);
  });
});

describe("the queue's query input", () => {
  it("carries the origin only when one is chosen, so the server page and the client share one cache entry", () => {
    expect(deltaListInput(PLAYBOOK, { status: "auto_applied", origin: "curator" })).toEqual({
      playbookId: PLAYBOOK,
      status: "auto_applied",
      origin: "curator",
      limit: 25,
    });
    const unfiltered = deltaListInput(undefined, { status: "all", origin: null });
    expect(unfiltered).toEqual({ status: "all", limit: 25 });
    expect(unfiltered).not.toHaveProperty("origin");
  });

  it("leaves the pending count unfiltered", () => {
    expect(pendingCountInput(PLAYBOOK)).toEqual({ playbookId: PLAYBOOK, status: "pending", limit: 1 });
  });
});

describe("links into the queue", () => {
  it("keep the status, the origin and the delta", () => {
    expect(reviewHref(null)).toBe("/review");
    expect(reviewHref(PLAYBOOK, { deltaId: DELTA })).toBe(`/playbooks/${PLAYBOOK}/review?delta=${DELTA}`);
    expect(reviewHref(PLAYBOOK, { deltaId: DELTA, status: "all" })).toBe(`/playbooks/${PLAYBOOK}/review?status=all&delta=${DELTA}`);
    expect(reviewHref(null, { deltaId: DELTA, status: "auto_applied", origin: "curator" })).toBe(
      `/review?status=auto_applied&origin=curator&delta=${DELTA}`,
    );
    expect(reviewHref(null, { origin: "person" })).toBe("/review?origin=person");
  });
});

describe("the words for a filtered list", () => {
  it("name the status and the origin", () => {
    expect(deltasIn({ status: "auto_applied", origin: "curator" }, 0)).toBe("auto-applied deltas from the curator");
    expect(deltasIn({ status: "all", origin: "person" }, 1)).toBe("delta from people");
    expect(deltasIn({ status: "pending", origin: null }, 2)).toBe("pending deltas");
  });
});
