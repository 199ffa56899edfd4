// Set up for every test file: a playbook state's bullets compare by their entries, whether they are
// a Map or layers of changes over one (LayeredMap, whose entries live in private fields that a deep
// equality would otherwise never read).
import { expect } from "vitest";
import { LayeredMap } from "@/server/ace/delta/layered-map";

function layeredMapsEqual(this: { equals(a: unknown, b: unknown): boolean }, a: unknown, b: unknown): boolean | undefined {
  if (!(a instanceof LayeredMap) && !(b instanceof LayeredMap)) return undefined;
  if (!(a instanceof LayeredMap || a instanceof Map) || !(b instanceof LayeredMap || b instanceof Map)) return false;
  return this.equals(new Map(a), new Map(b));
}

expect.addEqualityTesters([layeredMapsEqual]);
