// The frame of the sign-in, first-admin and invite pages: a narrow card under the brand.
import type { ReactNode } from "react";

export function AuthCard({ title, description, children }: { title: string; description?: ReactNode; children: ReactNode }) {
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-5 py-12 sm:py-20">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight text-ink">{title}</h1>
        {description ? <div className="mt-1.5 text-sm text-ink-muted">{description}</div> : null}
      </div>
      <div className="rounded-card border border-line bg-surface p-5 shadow-card sm:p-6">{children}</div>
    </div>
  );
}

const HOME = "/playbooks";
// Any origin will do: a path is safe when resolving it against one keeps that origin.
const PROBE_ORIGIN = "https://studio.invalid";
// URL parsers drop tabs and newlines and read a backslash as a slash, so "/\t/evil" and "/\\evil"
// become "//evil", another host.
const UNSAFE = /[\u0000-\u001f\u007f\\]/;
// Layers of percent-encoding checked: whatever decodes the address again must not find a host either.
const DECODINGS = 4;

/**
 * Where to go after signing in: a path of this site only, else the home page. The path must start
 * with one slash, hold no control character or backslash (also once percent-decoded, at any depth),
 * and keep the origin when parsed against it.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next) return HOME;
  let layer = next;
  for (let depth = 0; ; depth++) {
    if (!layer.startsWith("/") || layer.startsWith("//") || UNSAFE.test(layer)) return HOME;
    let decoded: string;
    try {
      decoded = decodeURIComponent(layer);
    } catch {
      return HOME;
    }
    if (decoded === layer) break;
    if (depth === DECODINGS) return HOME;
    layer = decoded;
  }
  let url: URL;
  try {
    url = new URL(next, PROBE_ORIGIN);
  } catch {
    return HOME;
  }
  return url.origin === PROBE_ORIGIN ? `${url.pathname}${url.search}${url.hash}` : HOME;
}

/**
 * Loads a page afresh after the session changed (signed in, signed out): every server component
 * renders again as the new person, and nothing cached for the previous one stays in the tab.
 */
export function reloadAt(path: string): void {
  window.location.assign(path);
}
