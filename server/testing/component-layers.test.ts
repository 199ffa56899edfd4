// The lint rule that keeps the folders of components/ in layers (eslint.config.mjs, COMPONENT_LAYERS):
// an import that would close a folder cycle fails `npm run lint`.
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const RULE = "import/no-restricted-paths";
// The repository's config; import/no-cycle is off because it reads the linted file from disk, and the probes are not there.
const eslint = new ESLint({ cwd: new URL("../..", import.meta.url).pathname, overrideConfig: { rules: { "import/no-cycle": "off" } } });

/** The messages of that rule for a file at `filePath` that imports `from`. */
async function layerErrors(filePath: string, from: string): Promise<string[]> {
  const code = `import * as probe from "${from}";\n\nexport const probed = probe;\n`;
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((message) => message.ruleId === RULE).map((message) => message.message);
}

describe("components/ folders depend on each other in layers", () => {
  it("rejects a domain importing another domain of its layer (runs → traces closed the runs ↔ traces cycle)", async () => {
    const errors = await layerErrors("components/runs/probe.tsx", "@/components/traces/trace-explorer");
    expect(errors).toEqual([expect.stringContaining("components/runs imports only from itself and the layers below it")]);
  }, 60_000);

  it("rejects an import from a layer above (deltas → playbooks), whether by alias or relative path", async () => {
    expect(await layerErrors("components/deltas/probe.tsx", "@/components/playbooks/labels")).toHaveLength(1);
    expect(await layerErrors("components/deltas/probe.tsx", "../playbooks/labels")).toHaveLength(1);
  }, 60_000);

  it("rejects shared/ or ui/ reaching into a domain", async () => {
    expect(await layerErrors("components/shared/probe.ts", "@/components/deltas/delta-badges")).toHaveLength(1);
    expect(await layerErrors("components/ui/probe.ts", "@/components/shared/delta-labels")).toHaveLength(1);
  }, 60_000);

  it("allows a folder's own files and the layers below it", async () => {
    expect(await layerErrors("components/runs/probe.tsx", "./run-badges")).toEqual([]);
    expect(await layerErrors("components/runs/probe.tsx", "@/components/shared/trace-badges")).toEqual([]);
    expect(await layerErrors("components/playbooks/probe.tsx", "@/components/history/bullet-lineage")).toEqual([]);
    expect(await layerErrors("components/shared/probe.ts", "@/components/ui/format")).toEqual([]);
  }, 60_000);
});
