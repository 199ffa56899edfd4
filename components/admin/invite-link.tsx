"use client";
// A one-time link just made (an invite, or a new link for an existing account), shown with the
// page's own origin and a copy button: ACE Studio sends no email, the admin passes it on.
import { CopyButton } from "@/components/ui/copy-button";
import { Notice } from "@/components/ui/notice";
import type { InviteLink } from "@/server/auth/schemas";

export function InviteLinkNotice({ link }: { link: InviteLink }) {
  const url = typeof window === "undefined" ? link.path : `${window.location.origin}${link.path}`;
  return (
    <Notice tone="success" title={`A one-time link for ${link.email}`}>
      <p>Send it to them yourself. It works once, until {link.expiresAt.toLocaleDateString()}; it is not shown again.</p>
      <div className="mt-2 flex items-center gap-2 rounded-lg border border-emerald-200 bg-surface px-2 py-1">
        <code className="min-w-0 flex-1 break-all font-mono text-xs text-ink" aria-label="Invite link">
          {url}
        </code>
        <CopyButton text={url} label="Copy link" what="the link" compact />
      </div>
    </Notice>
  );
}
