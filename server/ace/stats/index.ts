// Statistics for experiments and evolution charts: pure functions of counts and sums, each tested
// against SciPy reference values (reference/). See each module for the method and its citation.
export { StatisticsInputError } from "./validate";
export {
  Z_95,
  wilsonInterval,
  newcombeInterval,
  twoProportionZTest,
  type Comparison,
  type ProportionCounts,
  type ZTestResult,
} from "./proportions";
export { welchTTest, summarizeSample, type SampleSums, type MeanSummary, type DifferenceTest } from "./means";
export { ratioMetric, ratioDifferenceTest, type RatioSums, type RatioEstimate, type RatioDifferenceTest } from "./ratio";
export { holmAdjust } from "./multiple-testing";
export { sampleRatioMismatch } from "./srm";
export { exactMcNemar, type DiscordantPairs, type McNemarResult } from "./paired";
export { chanceToBeatControl } from "./bayes";
export { sampleSizePerVariant, minimumDetectableEffect, twoProportionPower, type PowerSettings } from "./power";
export { quantile, quantiles, quantilesOfSorted } from "./quantiles";
