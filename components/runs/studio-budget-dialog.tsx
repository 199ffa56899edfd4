"use client";
// The studio-wide monthly LLM budget (every playbook's runs together), beside each playbook's own.
// The fields follow the playbook settings' rules (settings-fields.ts), so both check a budget alike.
import { useMutation, useQuery } from "@tanstack/react-query";
import { Wallet } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { RoleGate } from "@/components/auth/role-gate";
import { Button, SubmitButton } from "@/components/ui/button";
import { DialogActions, DialogButton } from "@/components/ui/dialog";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { Notice } from "@/components/ui/notice";
import { LoadingStatus, Skeleton } from "@/components/ui/skeleton";
import { errorMessage } from "@/components/ui/errors";
import { NUMBER_FIELDS, parseField } from "@/components/shared/settings-fields";
import { useTRPC } from "@/components/trpc/client";
import type { StudioBudget } from "@/server/runs/schemas";
import { formatCost, formatTokens } from "@/components/ui/format";
import { useInvalidateRuns } from "./use-run-actions";

export function StudioBudgetButton({
  label = "Studio budget",
  variant = "secondary",
}: {
  label?: string;
  variant?: "secondary" | "ghost";
}) {
  const button = (
    <Button variant={variant} size={variant === "ghost" ? "sm" : "md"}>
      <Wallet aria-hidden /> {label}
    </Button>
  );
  return (
    <RoleGate action="budget.studio" control={button}>
      <DialogButton
        button={button}
        title="Studio budget"
        description="A monthly limit on the LLM tokens and dollars all playbooks' runs may use together. A warning at 75 %; at 100 % new runs wait for the next month."
      >
        {(close) => <StudioBudgetForm onDone={close} />}
      </DialogButton>
    </RoleGate>
  );
}

function StudioBudgetForm({ onDone }: { onDone: () => void }) {
  const trpc = useTRPC();
  const query = useQuery(trpc.runs.studioBudget.queryOptions());
  if (query.isPending) {
    return (
      <LoadingStatus label="Loading the budget…" className="flex flex-col gap-4">
        <Skeleton className="h-16" />
        <Skeleton className="h-16" />
      </LoadingStatus>
    );
  }
  if (query.isError) return <Notice tone="danger">{errorMessage(query.error)}</Notice>;
  return <BudgetFields budget={query.data} onDone={onDone} />;
}

function BudgetFields({ budget, onDone }: { budget: StudioBudget; onDone: () => void }) {
  const id = useId();
  const trpc = useTRPC();
  const invalidate = useInvalidateRuns();
  const [tokens, setTokens] = useState(budget.monthlyTokenBudget === null ? "" : String(budget.monthlyTokenBudget));
  const [cost, setCost] = useState(budget.monthlyCostBudgetUsd === null ? "" : String(budget.monthlyCostBudgetUsd));
  const [errors, setErrors] = useState<{ tokens?: string; cost?: string }>({});
  const mutation = useMutation(
    trpc.runs.setStudioBudget.mutationOptions({
      onSuccess: async (saved) => {
        const parts = [
          saved.monthlyTokenBudget === null ? null : `${formatTokens(saved.monthlyTokenBudget)} tokens`,
          saved.monthlyCostBudgetUsd === null ? null : formatCost(saved.monthlyCostBudgetUsd),
        ].filter(Boolean);
        toast.success(parts.length ? `Studio budget: ${parts.join(" and ")} a month` : "The studio has no budget limit now.");
        await invalidate();
        onDone();
      },
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const parsedTokens = parseField(NUMBER_FIELDS.monthlyTokenBudget, tokens);
    const parsedCost = parseField(NUMBER_FIELDS.monthlyCostBudgetUsd, cost);
    const found = {
      ...("error" in parsedTokens ? { tokens: parsedTokens.error } : {}),
      ...("error" in parsedCost ? { cost: parsedCost.error } : {}),
    };
    setErrors(found);
    if ("error" in parsedTokens || "error" in parsedCost) return;
    mutation.mutate({ monthlyTokenBudget: parsedTokens.value, monthlyCostBudgetUsd: parsedCost.value });
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <Field
        id={`${id}-tokens`}
        label="Monthly LLM tokens"
        optional
        hint="Input and output tokens together. Empty: no limit."
        error={errors.tokens}
      >
        <Input
          {...fieldAria(`${id}-tokens`, errors.tokens, true)}
          inputMode="numeric"
          placeholder="No limit"
          value={tokens}
          onChange={(event) => setTokens(event.target.value)}
          autoFocus
        />
      </Field>
      <Field
        id={`${id}-cost`}
        label="Monthly LLM cost (USD)"
        optional
        hint="Estimated from each model's price per token. Empty: no limit."
        error={errors.cost}
      >
        <Input
          {...fieldAria(`${id}-cost`, errors.cost, true)}
          inputMode="decimal"
          placeholder="No limit"
          value={cost}
          onChange={(event) => setCost(event.target.value)}
        />
      </Field>
      <DialogActions error={mutation.error} onCancel={onDone}>
        <SubmitButton pending={mutation.isPending} pendingLabel="Saving…">
          Save budget
        </SubmitButton>
      </DialogActions>
    </form>
  );
}
