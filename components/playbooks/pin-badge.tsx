// The mark of a pinned bullet, in its row and its sheet.
import { Pin } from "lucide-react";
import { Badge } from "@/components/ui/badge";

export function PinBadge() {
  return (
    <Badge tone="amber" title="Pinned: comes first in the context agents get, whatever its counters">
      <Pin aria-hidden className="size-3" /> Pinned
    </Badge>
  );
}
