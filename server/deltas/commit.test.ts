import { describe, expect, it } from "vitest";
import { AppError } from "@/server/errors/app-error";
import { RETRY, VersionMoved, withVersionRetry } from "./commit";

const gaveUp = () => new AppError("CONFLICT", "gave up");

describe("withVersionRetry", () => {
  it("returns the first attempt's result without retrying", async () => {
    const seen: boolean[] = [];
    const result = await withVersionRetry({ exhausted: gaveUp }, async ({ raced }) => {
      seen.push(raced);
      return "committed";
    });
    expect(result).toBe("committed");
    expect(seen).toEqual([false]);
  });

  it("recomputes after another writer moved the version, telling the attempt it raced", async () => {
    const seen: boolean[] = [];
    const result = await withVersionRetry({ exhausted: gaveUp }, async ({ raced }) => {
      seen.push(raced);
      if (seen.length < 3) throw new VersionMoved();
      return seen.length;
    });
    expect(result).toBe(3);
    expect(seen).toEqual([false, true, true]);
  });

  it("runs an attempt again when it asks to, without counting that as a lost race", async () => {
    const seen: boolean[] = [];
    const result = await withVersionRetry({ exhausted: gaveUp }, async ({ raced }) => {
      seen.push(raced);
      return seen.length === 1 ? RETRY : "second";
    });
    expect(result).toBe("second");
    expect(seen).toEqual([false, false]);
  });

  it("throws the caller's error after four attempts by default, or the number asked for", async () => {
    let tries = 0;
    await expect(
      withVersionRetry({ exhausted: gaveUp }, async () => {
        tries += 1;
        throw new VersionMoved();
      }),
    ).rejects.toThrow("gave up");
    expect(tries).toBe(4);

    tries = 0;
    await expect(
      withVersionRetry({ attempts: 1, exhausted: gaveUp }, async () => {
        tries += 1;
        return RETRY;
      }),
    ).rejects.toThrow("gave up");
    expect(tries).toBe(1);
  });

  it("lets any other error through at once", async () => {
    let tries = 0;
    const refused = new AppError("INVALID_INPUT", "no such bullet");
    await expect(
      withVersionRetry({ exhausted: gaveUp }, async () => {
        tries += 1;
        throw refused;
      }),
    ).rejects.toBe(refused);
    expect(tries).toBe(1);
  });
});
