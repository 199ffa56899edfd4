import type { ReactNode } from "react";
import { cn } from "./cn";
import { LoadingStatus } from "./skeleton";

const CARD = "overflow-hidden rounded-card border border-line bg-surface shadow-card";

/**
 * A list or table while it loads: a card of `rows` like rows split by lines, each holding the
 * placeholders `children`, under an optional header strip. With a `label` the card is the loading
 * status itself; without, it sits inside a larger one.
 */
export function SkeletonRows({
  rows,
  rowClassName,
  header,
  label,
  children,
}: {
  rows: number;
  /** The row's layout and padding; the dividing line is the card's. */
  rowClassName: string;
  header?: boolean;
  label?: string;
  children: ReactNode;
}) {
  const body = (
    <>
      {header ? <div className="h-10 border-b border-line bg-subtle/50" /> : null}
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className={cn("border-b border-line last:border-0", rowClassName)}>
          {children}
        </div>
      ))}
    </>
  );
  return label ? (
    <LoadingStatus label={label} className={CARD}>
      {body}
    </LoadingStatus>
  ) : (
    <div className={CARD}>{body}</div>
  );
}
