"use client";
// How an agent talks to this playbook: the URL it reads its context from before a task, the URL it
// posts its trace to after, and a curl example to copy. The origin is the browser's own.
import { FileCode2 } from "lucide-react";
import { CopyButton } from "@/components/ui/copy-button";
import { DetailSection } from "@/components/ui/detail-parts";
import { TextBlock } from "@/components/ui/text-block";
import { useHydrated } from "@/components/ui/use-hydrated";

/** 'it'\''s' : a value inside single quotes in a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlExample(origin: string, playbookName: string): string {
  const body = JSON.stringify(
    {
      playbook: playbookName,
      task: "What is the refund window for order 1042?",
      reasoning: "Following [str-00001], I looked up the order first…",
      output: "30 days",
      outcome: "success",
      feedback: { groundTruth: "30 days" },
    },
    null,
    2,
  );
  return [
    "# Before a task: the playbook as text, ready for the prompt",
    `curl -s ${shellQuote(`${origin}/api/v1/playbooks/${encodeURIComponent(playbookName)}/context?format=text`)}`,
    "",
    '# After it: report what happened (one trace, or {"traces": [...]})',
    `curl -s -X POST ${shellQuote(`${origin}/api/v1/traces`)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d ${shellQuote(body)}`,
  ].join("\n");
}

export function ConnectAgent({ playbookName }: { playbookName: string }) {
  const hydrated = useHydrated();
  // Until the browser says where the studio runs, paths (not URLs) keep the HTML the same on both sides.
  const origin = hydrated ? window.location.origin : "";
  const contextUrl = `${origin}/api/v1/playbooks/${encodeURIComponent(playbookName)}/context`;
  const tracesUrl = `${origin}/api/v1/traces`;
  return (
    <DetailSection
      title="Connect an agent"
      actions={
        <a href="/api/v1/openapi.json" className="inline-flex items-center gap-1 text-[13px] font-medium text-accent-ink hover:underline">
          <FileCode2 aria-hidden className="size-3.5" /> OpenAPI reference
        </a>
      }
    >
      <div className="flex flex-col gap-4">
        <p className="text-[13px] leading-relaxed text-ink-muted">
          Before each task the agent reads the compiled playbook (its best bullets within the token budget, with ids to cite); after it, the
          agent reports the trace. The reflector then tags the bullets it cited.
        </p>
        <dl className="flex flex-col gap-2.5 text-[13px]">
          <Endpoint label="Context" method="GET" url={contextUrl} />
          <Endpoint label="Traces" method="POST" url={tracesUrl} />
        </dl>
        <TextBlock text={curlExample(origin || "http://localhost:3000", playbookName)} label="curl example" />
      </div>
    </DetailSection>
  );
}

function Endpoint({ label, method, url }: { label: string; method: string; url: string }) {
  return (
    <div className="flex flex-col gap-1 sm:flex-row sm:items-center sm:gap-3">
      <dt className="w-16 shrink-0 font-medium text-ink-faint">{label}</dt>
      <dd className="flex min-w-0 flex-1 items-center gap-2 rounded-lg border border-line bg-subtle/40 py-1 pl-2.5 pr-1">
        <span className="rounded bg-surface px-1.5 py-0.5 font-mono text-[11px] font-semibold text-ink-muted ring-1 ring-line">
          {method}
        </span>
        <code className="min-w-0 flex-1 truncate font-mono text-xs text-ink" title={url}>
          {url}
        </code>
        <CopyButton text={url} label={`Copy the ${label.toLowerCase()} URL`} what={`the ${label.toLowerCase()} URL`} compact />
      </dd>
    </div>
  );
}
