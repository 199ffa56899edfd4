// A quiet line under the top bar while the studio runs without sign-in (no accounts, loopback only).
import Link from "next/link";

export function LocalModeBanner() {
  return (
    <div role="note" className="border-b border-line bg-subtle/60 text-[13px] text-ink-muted">
      <div className="mx-auto flex max-w-[1440px] flex-wrap items-center gap-x-2 gap-y-1 px-4 py-1.5 sm:px-6 lg:px-8">
        <span>No sign-in: only this computer can reach this studio and it has no accounts, so you act as its local admin.</span>
        <Link href="/setup" className="font-medium text-accent underline-offset-2 hover:underline">
          Create an admin account
        </Link>
        <span>to require sign-in.</span>
      </div>
    </div>
  );
}
