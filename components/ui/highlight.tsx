// The text with each place the search matched marked, as the search matched it: the whole query
// as one substring, ignoring case (the bullet search's ILIKE).
import { Fragment } from "react";

/** The [start, end) ranges where `query` occurs in `text`, ignoring case; none for a blank query. */
export function matchRanges(text: string, query: string): [number, number][] {
  const needle = query.trim().toLowerCase();
  if (needle === "") return [];
  const haystack = text.toLowerCase();
  const ranges: [number, number][] = [];
  // Lower-casing can change a string's length (e.g. "İ"); then marks would land wrong, so none.
  if (haystack.length !== text.length) return ranges;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
    ranges.push([at, at + needle.length]);
  }
  return ranges;
}

export function Highlight({ text, query }: { text: string; query: string }) {
  const ranges = matchRanges(text, query);
  if (ranges.length === 0) return <>{text}</>;
  const parts: { text: string; match: boolean }[] = [];
  let last = 0;
  for (const [start, end] of ranges) {
    if (start > last) parts.push({ text: text.slice(last, start), match: false });
    parts.push({ text: text.slice(start, end), match: true });
    last = end;
  }
  if (last < text.length) parts.push({ text: text.slice(last), match: false });
  return (
    <>
      {parts.map((part, index) =>
        part.match ? (
          <mark key={index} className="rounded-sm bg-amber-100 px-px text-inherit">
            {part.text}
          </mark>
        ) : (
          <Fragment key={index}>{part.text}</Fragment>
        ),
      )}
    </>
  );
}
