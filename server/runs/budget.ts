// Monthly token and cost budgets (the integration spec's cost control): per playbook and for the
// whole studio, a warning from 75 %, and no new LLM run once a limit is reached.
import { recordAudit, whoOf, type WhoOrName } from "@/server/audit/record";
import type { Db, DbOrTx } from "@/server/db/client";
import type { PlaybookSettings } from "@/server/playbooks/schemas";
import * as repo from "./repository";
import { studioBudgetSchema, type BudgetUsage, type StudioBudget } from "./schemas";

export const BUDGET_WARNING_SHARE = 0.75;
const STUDIO_BUDGET_KEY = "budget";

/** Budgets run by calendar month in UTC. */
export function monthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

export function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export async function readStudioBudget(db: DbOrTx): Promise<StudioBudget> {
  const parsed = studioBudgetSchema.safeParse(await repo.readAppSetting(db, STUDIO_BUDGET_KEY));
  return parsed.success ? parsed.data : { monthlyTokenBudget: null, monthlyCostBudgetUsd: null };
}

export async function writeStudioBudget(db: Db, who: WhoOrName, budget: StudioBudget): Promise<StudioBudget> {
  await db.$transaction(async (tx) => {
    const before = await readStudioBudget(tx);
    await repo.writeAppSetting(tx, STUDIO_BUDGET_KEY, budget);
    await recordAudit(tx, whoOf(who).audit, {
      action: "budget.update",
      target: { type: "studio", id: null, label: "studio budget" },
      before,
      after: budget,
    });
  });
  return budget;
}

const money = (usd: number) => `$${usd.toFixed(2)}`;
const tokens = (n: number) => n.toLocaleString("en-US");

/** Pure: how far a usage is into its limits, and what to tell a person about it. */
export function assessBudget(
  scope: BudgetUsage["scope"],
  used: { tokens: number; costUsd: number },
  limits: StudioBudget,
  now: Date,
): BudgetUsage {
  const shares: number[] = [];
  if (limits.monthlyTokenBudget !== null) shares.push(used.tokens / limits.monthlyTokenBudget);
  if (limits.monthlyCostBudgetUsd !== null) shares.push(used.costUsd / limits.monthlyCostBudgetUsd);
  const share = shares.length ? Math.max(...shares) : null;
  const level = share === null ? "ok" : share >= 1 ? "exceeded" : share >= BUDGET_WARNING_SHARE ? "warning" : "ok";
  const whose = scope === "studio" ? "The studio's" : "This playbook's";
  const spent = [
    limits.monthlyTokenBudget !== null ? `${tokens(used.tokens)} of ${tokens(limits.monthlyTokenBudget)} tokens` : null,
    limits.monthlyCostBudgetUsd !== null ? `${money(used.costUsd)} of ${money(limits.monthlyCostBudgetUsd)}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  const resumes = nextMonthStart(now).toISOString().slice(0, 10);
  const message =
    level === "exceeded"
      ? `${whose} monthly LLM budget is used up (${spent}). New reflector and curator runs wait until ${resumes} or until the budget is raised; the offline provider is not affected.`
      : level === "warning"
        ? `${whose} monthly LLM budget is ${Math.round((share ?? 0) * 100)} % used (${spent}).`
        : null;
  return {
    scope,
    tokens: used.tokens,
    costUsd: used.costUsd,
    tokenLimit: limits.monthlyTokenBudget,
    costLimitUsd: limits.monthlyCostBudgetUsd,
    share,
    level,
    message,
    monthStart: monthStart(now),
  };
}

/** The playbook's and the studio's budgets this month. */
export async function budgetUsage(db: Db, playbookId: string, settings: PlaybookSettings, now = new Date()): Promise<BudgetUsage[]> {
  const since = monthStart(now);
  const [own, all, studio] = await Promise.all([repo.usageSince(db, since, playbookId), repo.usageSince(db, since), readStudioBudget(db)]);
  return [
    assessBudget(
      "playbook",
      own,
      { monthlyTokenBudget: settings.monthlyTokenBudget, monthlyCostBudgetUsd: settings.monthlyCostBudgetUsd },
      now,
    ),
    assessBudget("studio", all, studio, now),
  ];
}
