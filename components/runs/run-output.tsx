"use client";
// What a run produced, readable: a reflection (diagnosis, key insight, bullet tags, lessons) or a
// curation (reasoning, proposed operations, problems); and the same as raw JSON.
import { Lightbulb } from "lucide-react";
import Link from "next/link";
import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Notice } from "@/components/ui/notice";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { jsonText } from "@/components/ui/detail-parts";
import { TextBlock } from "@/components/ui/text-block";
import { formatConfidence } from "@/components/ui/format";
import { bulletHref } from "@/components/ui/routes";
import type { RunRole } from "@/server/runs/schemas";
import { readCuration, readReflection, type CurationView, type ReflectionView } from "./run-record";

export function RunOutput({ role, output, playbookId }: { role: RunRole; output: unknown; playbookId: string }) {
  const reflection = role === "reflector" ? readReflection(output) : null;
  const curation = role === "curator" ? readCuration(output) : null;
  const readable = reflection ? (
    <ReflectionBody reflection={reflection} playbookId={playbookId} />
  ) : curation ? (
    <CurationBody curation={curation} playbookId={playbookId} />
  ) : null;
  return (
    <Tabs defaultValue={readable ? "readable" : "json"}>
      <TabsList aria-label="Output view">
        <TabsTrigger value="readable" disabled={!readable}>
          Readable
        </TabsTrigger>
        <TabsTrigger value="json">JSON</TabsTrigger>
      </TabsList>
      <TabsContent value="readable" className="mt-4 focus-visible:outline-none">
        {readable}
      </TabsContent>
      <TabsContent value="json" className="mt-4">
        <TextBlock text={jsonText(output)} label="output JSON" />
      </TabsContent>
    </Tabs>
  );
}

const TAG_META: Record<"helpful" | "harmful" | "neutral", { label: string; tone: BadgeTone; mark: string }> = {
  helpful: { label: "Helpful", tone: "green", mark: "✓" },
  harmful: { label: "Harmful", tone: "red", mark: "✗" },
  neutral: { label: "Neutral", tone: "gray", mark: "○" },
};

function Part({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="flex flex-col gap-1.5">
      <h3 className="text-[13px] font-medium text-ink-faint">{title}</h3>
      {children}
    </div>
  );
}

function Prose({ text, empty = "—" }: { text: string; empty?: string }) {
  return text.trim() ? (
    <p className="whitespace-pre-wrap break-words text-sm leading-relaxed text-ink">{text}</p>
  ) : (
    <p className="text-sm text-ink-faint">{empty}</p>
  );
}

function BulletLink({ id, playbookId }: { id: string; playbookId: string }) {
  return (
    <Link href={bulletHref(playbookId, id)} className="font-mono text-xs font-medium text-accent-ink hover:underline">
      [{id}]
    </Link>
  );
}

function ReflectionBody({ reflection, playbookId }: { reflection: ReflectionView; playbookId: string }) {
  return (
    <div className="flex flex-col gap-5">
      {reflection.keyInsight.trim() ? (
        <div className="flex gap-2.5 rounded-lg border border-indigo-200 bg-accent-soft/70 px-4 py-3">
          <Lightbulb aria-hidden className="mt-0.5 size-4 shrink-0 text-accent" />
          <div className="min-w-0">
            <p className="text-[13px] font-medium text-accent-ink">Key insight</p>
            <p className="mt-0.5 whitespace-pre-wrap break-words text-sm leading-relaxed text-ink">{reflection.keyInsight}</p>
          </div>
        </div>
      ) : (
        <p className="text-sm text-ink-muted">No key insight: nothing new to learn from this trace.</p>
      )}
      <Part title="Error identification">
        <Prose text={reflection.errorIdentification} />
      </Part>
      <Part title="Root cause">
        <Prose text={reflection.rootCause} />
      </Part>
      <Part title="Correct approach">
        <Prose text={reflection.correctApproach} />
      </Part>
      <Part title={`Bullet tags (${reflection.bulletTags.length})`}>
        {reflection.bulletTags.length === 0 ? (
          <p className="text-sm text-ink-faint">No cited bullet to tag.</p>
        ) : (
          <ul className="flex flex-col divide-y divide-line rounded-lg border border-line">
            {reflection.bulletTags.map((tag, index) => {
              const meta = TAG_META[tag.tag];
              return (
                <li key={`${tag.id}-${index}`} className="flex flex-col gap-1 px-3 py-2.5 sm:flex-row sm:items-start sm:gap-3">
                  <span className="flex shrink-0 items-center gap-2 sm:w-52">
                    <Badge tone={meta.tone}>
                      <span aria-hidden>{meta.mark}</span> {meta.label}
                    </Badge>
                    <BulletLink id={tag.id} playbookId={playbookId} />
                  </span>
                  <span className="min-w-0 text-[13px] leading-relaxed text-ink-muted">{tag.justification}</span>
                </li>
              );
            })}
          </ul>
        )}
      </Part>
      {reflection.lessons.length > 0 ? (
        <Part title={`Candidate lessons (${reflection.lessons.length})`}>
          <ul className="flex flex-col gap-2">
            {reflection.lessons.map((lesson, index) => (
              <li key={index} className="rounded-lg border border-line px-3 py-2.5">
                <p className="text-sm leading-relaxed text-ink">{lesson.content}</p>
                <p className="mt-1 text-xs text-ink-faint">
                  For <span className="font-medium text-ink-muted">{lesson.section}</span> · {lesson.evidence}
                </p>
              </li>
            ))}
          </ul>
        </Part>
      ) : null}
      <Part title="Reasoning">
        <Prose text={reflection.reasoning} />
      </Part>
    </div>
  );
}

const OPERATION_TONES: Record<string, BadgeTone> = { ADD: "green", UPDATE: "blue", REMOVE: "red", MERGE: "accent" };

function CurationBody({ curation, playbookId }: { curation: CurationView; playbookId: string }) {
  return (
    <div className="flex flex-col gap-5">
      <Part title="Reasoning">
        <Prose text={curation.reasoning} />
      </Part>
      <Part title={`Operations (${curation.operations.length})`}>
        {curation.operations.length === 0 ? (
          <p className="text-sm text-ink-muted">The curator proposed no change.</p>
        ) : (
          <ol className="flex flex-col gap-2">
            {curation.operations.map((op, index) => (
              <li key={index} className="rounded-lg border border-line px-3.5 py-3">
                <div className="flex flex-wrap items-center gap-2 text-[13px]">
                  <span className="text-xs tabular-nums text-ink-faint">{index + 1}.</span>
                  <Badge tone={OPERATION_TONES[op.type] ?? "neutral"}>{op.type}</Badge>
                  {op.section ? <span className="text-ink-muted">to {op.section}</span> : null}
                  {op.bulletIds.map((id) => (
                    <BulletLink key={id} id={id} playbookId={playbookId} />
                  ))}
                  {op.confidence !== null ? (
                    <span className="ml-auto text-xs tabular-nums text-ink-faint" title="Confidence the curator gave">
                      conf. {formatConfidence(op.confidence)}
                    </span>
                  ) : null}
                </div>
                {op.content ? <p className="mt-2 whitespace-pre-wrap break-words text-sm leading-relaxed text-ink">{op.content}</p> : null}
                {op.rationale ? <p className="mt-1.5 text-xs leading-relaxed text-ink-muted">{op.rationale}</p> : null}
              </li>
            ))}
          </ol>
        )}
      </Part>
      {curation.problems.length > 0 ? (
        <Notice tone="warning" compact announce={false} title="Adjusted or left out by the delta engine">
          <ul className="list-disc pl-4">
            {curation.problems.map((problem, index) => (
              <li key={index}>{problem}</li>
            ))}
          </ul>
        </Notice>
      ) : null}
      {curation.notes.length > 0 ? (
        <Part title="What happened">
          <ul className="flex flex-col gap-1 text-sm text-ink-muted">
            {curation.notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        </Part>
      ) : null}
    </div>
  );
}
