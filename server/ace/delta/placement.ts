// Inserting an item into an ordered list of integer positions while moving as few neighbours as
// possible: positions are stored per row, so every shifted neighbour is one more recorded change.
// Bullets within a section and sections within a playbook both use it.

export interface Placement<T> {
  /** The position the inserted item takes. */
  position: number;
  /** Items after it that had to move up to keep the order strict, with their new positions. */
  shifted: { item: T; position: number }[];
}

/**
 * `others` is the list in reading order without the inserted item; `index` is where the item goes
 * (clamped to the list). Gaps are used when there are any; later items shift only up to the first one
 * already past the new position, so equal-position neighbours further on keep their relative order.
 */
export function placeAt<T>(others: readonly T[], index: number, positionOf: (item: T) => number): Placement<T> {
  const at = Math.max(0, Math.min(index, others.length));
  const previous = others[at - 1];
  const first = others[0];
  const position = previous !== undefined ? positionOf(previous) + 1 : Math.min(0, first !== undefined ? positionOf(first) : 0);
  const shifted: { item: T; position: number }[] = [];
  let last = position;
  for (const item of others.slice(at)) {
    if (positionOf(item) > last) break;
    last += 1;
    shifted.push({ item, position: last });
  }
  return { position, shifted };
}
