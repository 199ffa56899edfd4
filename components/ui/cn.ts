// Joins class names (clsx: strings, conditionals, arrays) and resolves Tailwind conflicts with
// tailwind-merge, so a caller's className wins over a component's base class: cn("px-4", "px-2")
// is "px-2", whatever order Tailwind happens to emit the two rules in.
import { clsx, type ClassValue } from "clsx";
import { extendTailwindMerge } from "tailwind-merge";

const merge = extendTailwindMerge({
  extend: {
    // The design tokens of app/globals.css (@theme), so rounded-card conflicts with rounded-lg and
    // shadow-card is read as a shadow, not a shadow colour.
    theme: {
      radius: ["card"],
      shadow: ["card", "pop"],
      animate: ["fade-in", "sheet-in", "pop-in"],
    },
  },
  override: {
    conflictingClassGroups: {
      // In Tailwind 4 a leading-* class beats a text size's own line height in any order, so a
      // later text-xs must not drop an earlier leading-relaxed (text-xs/5 still does: see the
      // default conflictingClassGroupModifiers).
      "font-size": [],
    },
  },
});

export function cn(...values: ClassValue[]): string {
  return merge(clsx(values));
}
