// Figures of a chart put on the outcomes' buckets, so every chart of the page shares its x values.

/**
 * One `empty(start)` row per bucket, in the buckets' order, then each figure added to the row of
 * the bucket that starts at the same instant (ISO strings are compared as times); a figure whose
 * start is no bucket's is left out.
 */
export function rowsOnBuckets<Row, Figure extends { start: string }>(
  buckets: readonly { start: string }[],
  figures: readonly Figure[],
  empty: (start: string) => Row,
  add: (row: Row, figure: Figure) => void,
): Row[] {
  const byStart = new Map(buckets.map((bucket) => [Date.parse(bucket.start), empty(bucket.start)]));
  for (const figure of figures) {
    const row = byStart.get(Date.parse(figure.start));
    if (row) add(row, figure);
  }
  return [...byStart.values()];
}
