import { describe, expect, it } from "vitest";
import { cn } from "./cn";

describe("cn", () => {
  it("keeps the last of two conflicting Tailwind classes, so a caller's className wins", () => {
    expect(cn("px-4 py-3 text-sm", "px-2")).toBe("py-3 text-sm px-2");
    expect(cn("max-w-lg", "max-w-2xl")).toBe("max-w-2xl");
    expect(cn("grid-cols-[7.5rem_minmax(0,1fr)]", "grid-cols-[minmax(0,8rem)_minmax(0,1fr)]")).toBe(
      "grid-cols-[minmax(0,8rem)_minmax(0,1fr)]",
    );
  });

  it("knows the design tokens of the theme", () => {
    expect(cn("rounded-card", "rounded-md")).toBe("rounded-md");
    expect(cn("shadow-card", "shadow-pop")).toBe("shadow-pop");
    expect(cn("shadow-card", "shadow-rose-500")).toBe("shadow-card shadow-rose-500");
    expect(cn("animate-fade-in", "animate-none")).toBe("animate-none");
  });

  it("keeps classes of different groups, custom colours included", () => {
    expect(cn("text-sm text-ink", "text-ink-faint")).toBe("text-sm text-ink-faint");
    expect(cn("border border-line", "border-accent")).toBe("border border-accent");
  });

  it("keeps an earlier leading-* when a text size follows, as Tailwind 4 applies both", () => {
    expect(cn("text-sm leading-relaxed", "font-mono text-xs")).toBe("leading-relaxed font-mono text-xs");
    expect(cn("leading-relaxed", "text-xs/5")).toBe("text-xs/5");
  });

  it("takes conditionals and arrays like clsx", () => {
    expect(cn("a", false && "b", null, undefined, ["c", { d: true, e: false }])).toBe("a c d");
  });
});
