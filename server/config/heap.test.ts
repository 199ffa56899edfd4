import { describe, expect, it } from "vitest";
import { cacheHeapWarning, WORKING_HEAP_BYTES } from "./heap";

const MB = 1024 * 1024;

describe("cacheHeapWarning", () => {
  it("is quiet when the default caches fit in the heap npm start gives the server", () => {
    expect(cacheHeapWarning({ embeddings: 128 * MB, playbookStates: 512 * MB }, 1072 * MB)).toBeNull();
  });

  it("is quiet when the caches and the working room fill the heap exactly", () => {
    expect(cacheHeapWarning({ embeddings: 0, playbookStates: 1024 * MB - WORKING_HEAP_BYTES }, 1024 * MB)).toBeNull();
  });

  it("names both settings and the heap that would hold them when the caches do not fit", () => {
    const warning = cacheHeapWarning({ embeddings: 128 * MB, playbookStates: 1024 * MB }, 1072 * MB);
    expect(warning).toContain("the caches may hold 1152 MB (ACE_PLAYBOOK_CACHE_MB 1024 + ACE_EMBEDDING_CACHE_MB 128)");
    expect(warning).toContain("of a 1072 MB JavaScript heap");
    expect(warning).toContain("NODE_OPTIONS=--max-old-space-size=1408");
  });

  it("reads this process's heap limit when none is given", () => {
    expect(cacheHeapWarning({ embeddings: 0, playbookStates: 0 })).toBeNull();
    expect(cacheHeapWarning({ embeddings: 0, playbookStates: 1024 * 1024 * MB })).toMatch(/JavaScript heap/);
  });
});
