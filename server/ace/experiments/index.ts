// Experiment assignment: deterministic, and the same as GrowthBook's SDKs (hashing version 2).
export { assignVariant, AssignmentInputError, type AssignmentInput } from "./assignment";
