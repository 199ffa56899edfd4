// The delta engine's public surface: operation and state types, validation and application.
export * from "./types";
export { applyDelta, changesCompiledLine, validateDelta, DeltaValidationError } from "./engine";
export { bulletsBySection, compareBullets, compareText, createPlaybookState, orderedBullets } from "./state";
export { resolveSection, sectionKey } from "./sections";
export { LayeredMap } from "./layered-map";
export { unpinned } from "./operations";
