"use client";
// What a run sent and what came back, round by round: each message labelled by its role and
// collapsible (the system prompt starts folded: it is the same for every run), then the raw answer.
// Offline runs make no LLM call; they show the inputs their rules read and what the rules returned.
import { ChevronRight } from "lucide-react";
import type { ReactNode } from "react";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { jsonText } from "@/components/ui/detail-parts";
import { TextBlock } from "@/components/ui/text-block";
import { prettyJson, promptRounds, rawResponses, type ChatTurn } from "./run-record";

const ROLE_TONES: Record<string, BadgeTone> = { system: "gray", user: "blue", assistant: "accent" };

export function RunExchange({ prompt, rawResponse, attempts }: { prompt: unknown; rawResponse: unknown; attempts: number }) {
  const rounds = promptRounds(prompt);
  const answers = rawResponses(rawResponse);
  const count = Math.max(rounds.length, answers.length);
  if (count === 0) {
    return (
      <p className="text-sm text-ink-muted">
        {attempts === 0
          ? "Nothing was sent yet: the run has not started."
          : "Nothing recorded: no attempt has had an answer yet (the messages are kept with each answer that comes back)."}
      </p>
    );
  }
  return (
    <ol className="flex flex-col gap-6">
      {Array.from({ length: count }, (_, index) => {
        const round = rounds[index];
        const answer = answers[index];
        const offline = round?.kind === "inputs";
        return (
          <li key={index} aria-label={`Round ${index + 1}`} className="flex flex-col gap-3">
            {count > 1 ? (
              <h3 className="flex items-center gap-2 text-[13px] font-semibold text-ink">
                Round {index + 1}
                <span className="h-px flex-1 bg-line" aria-hidden />
              </h3>
            ) : null}
            {round?.kind === "messages" ? (
              <div className="flex flex-col gap-2">
                {round.messages.map((message, position) => (
                  <Message key={position} message={message} defaultOpen={message.role !== "system"} />
                ))}
              </div>
            ) : round ? (
              <Folded
                title="Rules input"
                tone="gray"
                summary="The offline provider makes no LLM call; its rules read this."
                defaultOpen={false}
              >
                <TextBlock text={jsonText(round.value)} label="the rules' input" />
              </Folded>
            ) : null}
            {answer !== undefined ? (
              <Folded
                title={offline ? "Rules output" : "Raw response"}
                tone="green"
                summary={offline ? "What the rules returned" : "The model's answer as received"}
                defaultOpen
              >
                <TextBlock text={prettyJson(answer)} label={offline ? "the rules' output" : "the raw response"} />
              </Folded>
            ) : (
              <p className="text-sm italic text-ink-faint">No answer recorded for this round (the call failed or is under way).</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function preview(text: string): string {
  const line =
    text
      .trim()
      .split("\n")
      .find((l) => l.trim()) ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function Message({ message, defaultOpen }: { message: ChatTurn; defaultOpen: boolean }) {
  const role = message.role.charAt(0).toUpperCase() + message.role.slice(1);
  return (
    <Folded title={role} tone={ROLE_TONES[message.role] ?? "neutral"} summary={preview(message.content)} defaultOpen={defaultOpen}>
      <TextBlock text={message.content} label={`the ${message.role} message`} />
    </Folded>
  );
}

/** A native <details>: keyboard and screen readers know it as a disclosure for free. */
function Folded({
  title,
  tone,
  summary,
  defaultOpen,
  children,
}: {
  title: string;
  tone: BadgeTone;
  summary: string;
  defaultOpen: boolean;
  children: ReactNode;
}) {
  return (
    <details open={defaultOpen} className="group/fold rounded-lg border border-line bg-surface">
      <summary className="flex cursor-pointer list-none items-center gap-2 rounded-lg px-3 py-2 text-[13px] hover:bg-subtle/60 [&::-webkit-details-marker]:hidden">
        <ChevronRight aria-hidden className="size-3.5 shrink-0 text-ink-faint transition-transform group-open/fold:rotate-90" />
        <Badge tone={tone}>{title}</Badge>
        <span className="min-w-0 truncate text-ink-muted">{summary}</span>
      </summary>
      <div className="px-3 pb-3">{children}</div>
    </details>
  );
}
