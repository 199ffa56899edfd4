// Checks the redaction card runs as a person types, with the server's own RE2 checks.
import { patternNameProblem, patternProblem, type RedactionSettings } from "@/server/playbooks/schemas";

/** The first problem of the custom patterns, naming the row, or null. */
export function customPatternsProblem(patterns: RedactionSettings["customPatterns"]): string | null {
  const seen = new Set<string>();
  for (const [index, { name, pattern }] of patterns.entries()) {
    const row = `Custom pattern ${index + 1}`;
    const nameProblem = patternNameProblem(name.trim());
    if (nameProblem) return `${row}: the name "${name}" ${nameProblem}`;
    if (seen.has(name.trim())) return `${row}: two patterns are named "${name.trim()}".`;
    seen.add(name.trim());
    const problem = patternProblem(pattern);
    if (problem) return `${row}: the pattern ${problem}`;
  }
  return null;
}
