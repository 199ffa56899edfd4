// Experiment assignment: deterministic, and the same as GrowthBook's SDKs (hashing version 2).
export {
  assignVariant,
  validateAssignmentInput,
  AssignmentInputError,
  MIN_VARIANTS,
  MAX_VARIANTS,
  WEIGHT_SUM_TOLERANCE,
  type Assignment,
  type AssignmentInput,
} from "./assignment";
