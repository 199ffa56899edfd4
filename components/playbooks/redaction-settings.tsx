"use client";
// The settings tab's redaction card: which kinds are replaced in traces as they arrive, custom
// patterns (checked in the browser with the server's RE2 code), a dry run on the playbook's 200
// newest traces before saving, and saving as a version like the other settings.
import { useMutation, useQuery, useSuspenseQuery } from "@tanstack/react-query";
import { Plus, Trash2 } from "lucide-react";
import { useId, useState } from "react";
import { toast } from "sonner";
import { usePermission } from "@/components/auth/session-context";
import { Button } from "@/components/ui/button";
import { errorMessage } from "@/components/ui/errors";
import { plural } from "@/components/ui/format";
import { Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { Switch } from "@/components/ui/switch";
import { useTRPC } from "@/components/trpc/client";
import { useInvalidateCuration } from "@/components/trpc/invalidate";
import { MAX_CUSTOM_PATTERNS, type RedactionSettings } from "@/server/playbooks/schemas";
import { customPatternsProblem } from "./redaction-fields";
import { summarizeRedactions } from "@/components/shared/redaction-summary";
import { RedactionBadges } from "@/components/shared/redaction-badges";

const KINDS = [
  {
    key: "secrets",
    label: "Secrets",
    help: "API keys (ACE Studio, OpenAI, Anthropic, GitHub, AWS, Google, Slack, Stripe, npm), JWTs, Bearer and Basic credentials, private keys, passwords and random-looking key= values, also URL-encoded or in base64.",
  },
  { key: "cards", label: "Card numbers", help: "13–19 digits that pass the Luhn check." },
  { key: "emails", label: "Email addresses", help: "Off by default." },
  { key: "phones", label: "Phone numbers", help: "International, North American and national formats. Off by default." },
  { key: "ibans", label: "IBANs", help: "Bank account numbers whose checksum holds. Off by default." },
  {
    key: "ssns",
    label: "US social security numbers",
    help: "123-45-6789 or 123 45 6789, except numbers never issued (area 000, 666 or 9xx, group 00, serial 0000). Off by default.",
  },
] as const;

/** A custom pattern's row: its name, then the expression. */
const PATTERN_INPUTS = [
  { field: "name", className: "w-40", placeholder: "name" },
  { field: "pattern", className: "min-w-48 flex-1 font-mono", placeholder: "TCK-[0-9]{6}" },
] as const;

export function RedactionSettingsCard({ playbookId }: { playbookId: string }) {
  const trpc = useTRPC();
  const { data: playbook } = useSuspenseQuery(trpc.playbook.get.queryOptions({ playbookId }));
  return <RedactionSettingsBody key={playbook.version} playbookId={playbookId} saved={playbook.settings.redaction} />;
}

function RedactionSettingsBody({ playbookId, saved }: { playbookId: string; saved: RedactionSettings }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateCuration();
  const id = useId();
  const [draft, setDraft] = useState<RedactionSettings>(saved);
  const [tried, setTried] = useState<RedactionSettings | null>(null);
  const permission = usePermission("playbook.settings");
  const canPreview = usePermission("redaction.preview").allowed;
  const locked = !permission.allowed;
  const problem = customPatternsProblem(draft.customPatterns);
  const dirty = JSON.stringify(draft) !== JSON.stringify(saved);

  const preview = useQuery({
    ...trpc.traces.redactionPreview.queryOptions({ playbookId, redaction: tried ?? saved }),
    enabled: tried !== null,
  });
  const save = useMutation(
    trpc.playbook.updateSettings.mutationOptions({
      onSuccess: async (result) => {
        if (result.changed.length === 0) toast.info("Nothing changed.");
        else toast.success(`Redaction saved as version ${result.version}`, { description: result.changed.join(" · ") });
        await invalidate();
      },
    }),
  );

  const setPattern = (index: number, change: Partial<{ name: string; pattern: string }>) =>
    setDraft((previous) => ({
      ...previous,
      customPatterns: previous.customPatterns.map((row, at) => (at === index ? { ...row, ...change } : row)),
    }));

  const summary = preview.data ? summarizeRedactions({ counts: preview.data.counts, fields: [] }) : null;

  return (
    <section aria-label="Redaction" className="overflow-hidden rounded-card border border-line bg-surface shadow-card">
      <header className="border-b border-line px-4 py-3 sm:px-5">
        <h2 className="text-sm font-semibold text-ink">Redaction</h2>
        <p className="mt-0.5 text-[13px] text-ink-muted">
          Replaced in traces as they arrive, before anything is stored or sent to a model, e.g. [REDACTED:email]. Traces already stored are
          not rewritten.
        </p>
      </header>
      <fieldset disabled={locked} className="flex min-w-0 flex-col divide-y divide-line">
        {KINDS.map((kind) => (
          <div key={kind.key} className="flex items-center justify-between gap-4 px-4 py-3 sm:px-5">
            <div className="min-w-0">
              <label htmlFor={`${id}-${kind.key}`} className="text-sm font-medium text-ink">
                {kind.label}
              </label>
              <p className="text-[13px] text-ink-muted">{kind.help}</p>
            </div>
            <Switch
              id={`${id}-${kind.key}`}
              checked={draft[kind.key]}
              onCheckedChange={(checked) => setDraft((previous) => ({ ...previous, [kind.key]: checked }))}
            />
          </div>
        ))}
        <div className="flex flex-col gap-3 px-4 py-3 sm:px-5">
          <div>
            <p className="text-sm font-medium text-ink">Custom patterns</p>
            <p className="text-[13px] text-ink-muted">
              RE2 regular expressions (no backreferences or lookaround), replaced by [REDACTED:name]. Use (?i) to ignore case.
            </p>
          </div>
          {draft.customPatterns.map((row, index) => (
            <div key={index} className="flex flex-wrap items-center gap-2">
              {PATTERN_INPUTS.map(({ field, className, placeholder }) => (
                <Input
                  key={field}
                  aria-label={`Custom pattern ${index + 1} ${field}`}
                  className={className}
                  placeholder={placeholder}
                  value={row[field]}
                  onChange={(event) => setPattern(index, { [field]: event.target.value })}
                />
              ))}
              <Button
                variant="ghost"
                size="sm"
                aria-label={`Remove custom pattern ${index + 1}`}
                onClick={() =>
                  setDraft((previous) => ({ ...previous, customPatterns: previous.customPatterns.filter((_, at) => at !== index) }))
                }
              >
                <Trash2 aria-hidden />
              </Button>
            </div>
          ))}
          {problem ? (
            <p className="text-[13px] text-rose-700" role="alert">
              {problem}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-2">
            <Button
              variant="secondary"
              size="sm"
              disabled={draft.customPatterns.length >= MAX_CUSTOM_PATTERNS}
              onClick={() =>
                setDraft((previous) => ({ ...previous, customPatterns: [...previous.customPatterns, { name: "", pattern: "" }] }))
              }
            >
              <Plus aria-hidden /> Add a pattern
            </Button>
          </div>
        </div>
      </fieldset>
      <div className="flex flex-col gap-3 border-t border-line px-4 py-3 sm:px-5">
        <div className="flex flex-wrap items-center gap-2">
          <Button variant="secondary" size="sm" disabled={problem !== null || !canPreview} onClick={() => setTried(draft)}>
            Try on recent traces
          </Button>
          <Button
            variant="primary"
            size="sm"
            disabled={locked || problem !== null || !dirty || save.isPending}
            onClick={() => save.mutate({ playbookId, settings: { redaction: draft } })}
          >
            {save.isPending ? "Saving…" : "Save redaction"}
          </Button>
        </div>
        {save.isError ? (
          <Notice tone="danger" title="Redaction was not saved">
            {errorMessage(save.error)}
          </Notice>
        ) : null}
        {tried !== null ? (
          <div aria-live="polite" className="text-sm">
            {preview.isPending ? <p className="text-ink-muted">Reading the newest traces…</p> : null}
            {preview.isError ? <p className="text-rose-700">{errorMessage(preview.error)}</p> : null}
            {preview.data ? (
              <div className="flex flex-col gap-2">
                <p className="text-ink-muted">
                  Of the {plural(preview.data.scanned, "newest trace")}, {plural(preview.data.tracesMatched, "trace")} would have something
                  replaced (after what was redacted when they arrived).
                </p>
                {summary ? <RedactionBadges rows={summary.rows} /> : null}
                {preview.data.examples.length > 0 ? (
                  <ul className="flex flex-col gap-1">
                    {preview.data.examples.map((example, index) => (
                      <li key={index} className="rounded bg-subtle px-2 py-1 font-mono text-xs text-ink-muted">
                        <span className="text-ink-faint">{example.field}: </span>
                        {example.excerpt}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}
