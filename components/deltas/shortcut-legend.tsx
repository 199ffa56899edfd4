import { cn } from "@/components/ui/cn";
import { Kbd } from "@/components/ui/kbd";

const SHORTCUTS = [
  { keys: ["j", "k"], label: "next / previous" },
  { keys: ["a"], label: "approve" },
  { keys: ["r"], label: "reject" },
  { keys: ["e"], label: "edit" },
] as const;

/**
 * The queue's keys, always on screen: a shortcut nobody can see is a shortcut nobody uses. Dimmed
 * until the page has loaded far enough for the keys to work.
 */
export function ShortcutLegend({ active }: { active: boolean }) {
  return (
    <section
      aria-label="Keyboard shortcuts"
      data-active={active}
      title={active ? undefined : "The shortcuts work once the page has finished loading."}
      className={cn("hidden items-center gap-3 text-xs text-ink-faint transition-opacity md:flex", !active && "opacity-50")}
    >
      {SHORTCUTS.map((shortcut) => (
        <span key={shortcut.label} className="inline-flex items-center gap-1">
          {shortcut.keys.map((key) => (
            <Kbd key={key}>{key}</Kbd>
          ))}
          <span>{shortcut.label}</span>
        </span>
      ))}
    </section>
  );
}
