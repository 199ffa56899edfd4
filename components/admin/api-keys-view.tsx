"use client";
// Settings → API keys: keys for agents and scripts. Each has a name, scopes, the playbooks it may
// touch and an optional expiry; the secret is shown once. Rotation: create a new key, switch the
// agent to it, revoke the old one. Each key shows its creator, whose role bounds it; an admin can
// transfer a key to another admin.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Plus } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button, SubmitButton } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { CopyButton } from "@/components/ui/copy-button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DialogButton, DialogFooter } from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { errorMessage, formErrors } from "@/components/ui/errors";
import { Field, fieldAria, Input } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { ErrorNotice, Notice } from "@/components/ui/notice";
import { RelativeTime } from "@/components/ui/relative-time";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import {
  API_SCOPES,
  creatorLabel,
  SCOPE_DESCRIPTIONS,
  type ApiKeyListItem,
  type ApiKeyOwner,
  type ApiScope,
  type CreatedApiKey,
} from "@/server/apikeys/schemas";
import { AdminTable } from "./admin-table";
import { AdminHeader } from "./settings-nav";

const STATUS_TONE = { active: "green", expired: "gray", revoked: "red" } as const;
const EXPIRY_OPTIONS = [
  { value: "never", label: "Never" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
] as const;
type Expiry = (typeof EXPIRY_OPTIONS)[number]["value"];

export function ApiKeysView() {
  const trpc = useTRPC();
  const keys = useQuery(trpc.apiKeys.list.queryOptions());
  return (
    <div className="pb-16">
      <AdminHeader
        title="API keys"
        description="Agents and scripts send a key as Authorization: Bearer <key> to the /api/v1 routes. A key holds scopes and may be limited to some playbooks. To rotate one, create its replacement, switch the agent over, then revoke the old key."
        actions={<CreateKeyButton />}
      />
      {keys.isPending ? (
        <Skeleton className="h-40" />
      ) : keys.isError ? (
        <LoadFailed what="API keys" error={keys.error} onRetry={() => void keys.refetch()} />
      ) : keys.data.length === 0 ? (
        <EmptyState icon={<KeyRound />} title="No API keys yet">
          Create one for each agent or script, with only the scopes it needs (an agent usually needs context:read and traces:write).
        </EmptyState>
      ) : (
        <KeysTable keys={keys.data} />
      )}
    </div>
  );
}

function KeysTable({ keys }: { keys: ApiKeyListItem[] }) {
  return (
    <AdminTable label="API keys" columns={["Key", "Scopes", "Playbooks", "Last used", "Status"]} withActions>
      {keys.map((key) => (
        <KeyRow key={key.id} apiKey={key} />
      ))}
    </AdminTable>
  );
}

/** Whose role bounds the key: the key that made it passes on its own creator. */
function ownerOf(apiKey: ApiKeyListItem): ApiKeyOwner {
  return apiKey.creator.kind === "apikey" ? apiKey.creator.owner : apiKey.creator;
}

function adminWithheld(apiKey: ApiKeyListItem, owner: ApiKeyOwner): boolean {
  return apiKey.status === "active" && apiKey.scopes.includes("admin") && owner.kind === "user" && !owner.admin;
}

function KeyRow({ apiKey }: { apiKey: ApiKeyListItem }) {
  const owner = ownerOf(apiKey);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  const revoke = useMutation(
    trpc.apiKeys.revoke.mutationOptions({
      onSuccess: async () => {
        toast.success(`Key "${apiKey.name}" is revoked; requests with it now get 401.`);
        setConfirm(false);
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
      },
    }),
  );
  return (
    <tr>
      <td className="px-4 py-3 align-top">
        <p className="font-medium text-ink">{apiKey.name}</p>
        <p className="font-mono text-xs text-ink-muted">{apiKey.preview}</p>
        <p className="text-xs text-ink-faint">
          {apiKey.creator.kind === "unknown" ? (
            <span className="font-medium text-danger">{creatorLabel(apiKey.creator)}</span>
          ) : (
            <span className={owner.kind === "unknown" ? "text-danger" : undefined}>by {creatorLabel(apiKey.creator)}</span>
          )}
          , <RelativeTime date={apiKey.createdAt} />
        </p>
        {adminWithheld(apiKey, owner) ? (
          <p className="mt-1 text-xs font-medium text-danger">
            Admin scope withheld: {owner.kind === "user" ? owner.label : "its creator"} is not an admin. Transfer the key, or revoke it.
          </p>
        ) : null}
      </td>
      <td className="px-4 py-3 align-top">
        <div className="flex max-w-72 flex-wrap gap-1">
          {apiKey.scopes.map((scope) => (
            <Badge key={scope} tone={scope === "admin" ? "accent" : "neutral"} title={SCOPE_DESCRIPTIONS[scope]}>
              {scope}
            </Badge>
          ))}
        </div>
      </td>
      <td className="px-4 py-3 align-top text-ink-muted">
        {apiKey.playbooks === null ? "All" : apiKey.playbooks.map((playbook) => playbook.name ?? "(deleted playbook)").join(", ")}
      </td>
      <td className="px-4 py-3 align-top text-ink-muted">{apiKey.lastUsedAt ? <RelativeTime date={apiKey.lastUsedAt} /> : "never"}</td>
      <td className="px-4 py-3 align-top">
        <Badge tone={STATUS_TONE[apiKey.status]}>{apiKey.status}</Badge>
        {apiKey.status === "revoked" && apiKey.revokedReason ? <p className="mt-1 text-xs text-ink-faint">{apiKey.revokedReason}</p> : null}
        {apiKey.status === "active" && apiKey.expiresAt ? (
          <p className="mt-1 text-xs text-ink-faint">
            expires <RelativeTime date={apiKey.expiresAt} />
          </p>
        ) : null}
      </td>
      <td className="px-4 py-3 text-right align-top">
        {apiKey.status === "revoked" ? null : <TransferKeyButton apiKey={apiKey} />}
        {apiKey.status === "revoked" ? null : (
          <ConfirmDialog
            open={confirm}
            onOpenChange={setConfirm}
            trigger={
              <Button size="sm" variant="ghost">
                Revoke…
              </Button>
            }
            title={`Revoke "${apiKey.name}"?`}
            description="Every agent or script using it gets 401 from its next request. This cannot be undone."
            confirmLabel="Revoke the key"
            pendingLabel="Revoking…"
            pending={revoke.isPending}
            error={revoke.error}
            onConfirm={() => revoke.mutate({ keyId: apiKey.id })}
          />
        )}
      </td>
    </tr>
  );
}

function TransferKeyButton({ apiKey }: { apiKey: ApiKeyListItem }) {
  return (
    <DialogButton
      button={
        <Button size="sm" variant="ghost">
          Transfer…
        </Button>
      }
      title={`Transfer "${apiKey.name}"`}
      description="The admin you choose becomes the key's creator: it keeps its admin scope while they are an admin, and is revoked if their account is disabled or deleted. For service keys that must outlive a person."
    >
      {(close) => <TransferKeyForm apiKey={apiKey} onDone={close} />}
    </DialogButton>
  );
}

function TransferKeyForm({ apiKey, onDone }: { apiKey: ApiKeyListItem; onDone: () => void }) {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const owner = ownerOf(apiKey);
  const admins = (users.data ?? []).filter((user) => user.role === "admin" && !user.disabled);
  const [toUserId, setToUserId] = useState("");
  const transfer = useMutation(
    trpc.apiKeys.transfer.mutationOptions({
      onSuccess: async (result) => {
        toast.success(`Key "${apiKey.name}" now belongs to ${creatorLabel(result.creator)}.`);
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
        onDone();
      },
    }),
  );
  const { fields, unshown } = formErrors(transfer.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (toUserId) transfer.mutate({ keyId: apiKey.id, toUserId });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-5" noValidate>
      <p className="text-sm text-ink-muted">Current creator: {creatorLabel(apiKey.creator)}.</p>
      {users.isPending ? (
        <Skeleton className="h-9" />
      ) : users.isError ? (
        <LoadFailed what="admins" error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <Field id={`${id}-admin`} label="New creator" hint="Active admins only." error={fields.toUserId}>
          <Select<string>
            id={`${id}-admin`}
            value={toUserId}
            onValueChange={setToUserId}
            placeholder="Choose an admin"
            options={admins
              .filter((user) => !(owner.kind === "user" && owner.userId === user.id))
              .map((user) => ({ value: user.id, label: user.name ? `${user.name} (${user.email})` : user.email }))}
          />
        </Field>
      )}
      <ErrorNotice error={unshown} />
      <DialogFooter>
        <SubmitButton pending={transfer.isPending} pendingLabel="Transferring…" disabled={!toUserId}>
          Transfer the key
        </SubmitButton>
      </DialogFooter>
    </form>
  );
}

function CreateKeyButton() {
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  return (
    <DialogButton
      button={
        <Button variant="primary">
          <Plus aria-hidden /> Create a key
        </Button>
      }
      title={created ? `Key "${created.name}" created` : "Create an API key"}
      onOpenChange={(open) => {
        if (!open) setCreated(null);
      }}
    >
      {(close) => (created ? <CreatedKey created={created} onDone={close} /> : <CreateKeyForm onCreated={setCreated} />)}
    </DialogButton>
  );
}

function CreatedKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <div className="flex flex-col gap-4">
      <Notice tone="warning" title="Copy the key now">
        It is shown only this once; ACE Studio keeps a hash of it, not the key. If it is lost, create another.
      </Notice>
      <div className="flex items-center gap-2 rounded-lg border border-line bg-subtle px-3 py-2">
        <code className="min-w-0 flex-1 break-all font-mono text-xs text-ink" aria-label="The new API key">
          {created.secret}
        </code>
        <CopyButton text={created.secret} label="Copy the key" what="the key" compact />
      </div>
      <p className="text-sm text-ink-muted">
        An agent sends it as <code className="font-mono text-xs">Authorization: Bearer {created.preview}</code>, e.g. from the environment
        variable ACE_API_KEY.
      </p>
      <DialogFooter>
        <Button variant="primary" onClick={onDone}>
          I have copied it
        </Button>
      </DialogFooter>
    </div>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const playbooks = useQuery(trpc.playbook.list.queryOptions());
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiScope[]>(["context:read", "traces:write"]);
  const [allPlaybooks, setAllPlaybooks] = useState(true);
  const [chosen, setChosen] = useState<string[]>([]);
  const [expiry, setExpiry] = useState<Expiry>("never");
  const [limit, setLimit] = useState("");
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: async (created) => {
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey() });
        onCreated(created);
      },
    }),
  );
  const { fields, unshown } = formErrors(create.error);
  const limitValue = limit.trim() === "" ? null : Number(limit);
  const limitError =
    limitValue !== null && (!Number.isInteger(limitValue) || limitValue < 1)
      ? "A whole number of requests a minute, or empty for the server's default."
      : undefined;

  function toggle<T>(list: T[], item: T, on: boolean): T[] {
    return on ? [...list, item] : list.filter((value) => value !== item);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    if (limitError) return;
    create.mutate({
      name,
      scopes,
      playbooks: allPlaybooks ? "all" : chosen,
      expiresInDays: expiry === "never" ? null : Number(expiry),
      rateLimitPerMinute: limitValue,
    });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-5" noValidate>
      <Field id={`${id}-name`} label="Name" hint="What uses it, e.g. support agent (production)." error={fields.name}>
        <Input
          {...fieldAria(`${id}-name`, fields.name, true)}
          required
          autoFocus
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </Field>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-[13px] font-medium text-ink">Scopes</legend>
        {API_SCOPES.map((scope) => (
          <label key={scope} className="flex items-start gap-2.5 text-sm">
            <Checkbox
              className="mt-0.5"
              checked={scopes.includes(scope)}
              onChange={(event) => setScopes(toggle(scopes, scope, event.target.checked))}
            />
            <span>
              <span className="font-mono text-xs font-medium text-ink">{scope}</span>
              <span className="block text-xs text-ink-muted">{SCOPE_DESCRIPTIONS[scope]}</span>
            </span>
          </label>
        ))}
        {fields.scopes ? <p className="text-xs font-medium text-danger">{fields.scopes}</p> : null}
      </fieldset>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-[13px] font-medium text-ink">Playbooks</legend>
        <label className="flex items-center gap-2.5 text-sm">
          <input
            type="radio"
            name={`${id}-playbooks`}
            checked={allPlaybooks}
            onChange={() => setAllPlaybooks(true)}
            className="accent-[var(--color-accent)]"
          />
          All playbooks, today&apos;s and future ones
        </label>
        <label className="flex items-center gap-2.5 text-sm">
          <input
            type="radio"
            name={`${id}-playbooks`}
            checked={!allPlaybooks}
            onChange={() => setAllPlaybooks(false)}
            className="accent-[var(--color-accent)]"
          />
          Only these:
        </label>
        {!allPlaybooks ? (
          <div className="ml-6 flex max-h-48 flex-col gap-1.5 overflow-y-auto rounded-lg border border-line p-2">
            {playbooks.isPending ? (
              <Skeleton className="h-6" />
            ) : playbooks.isError ? (
              <p className="text-xs text-danger">{errorMessage(playbooks.error)}</p>
            ) : (
              playbooks.data.map((playbook) => (
                <label key={playbook.id} className="flex items-center gap-2 text-sm">
                  <Checkbox
                    checked={chosen.includes(playbook.id)}
                    onChange={(event) => setChosen(toggle(chosen, playbook.id, event.target.checked))}
                  />
                  {playbook.name}
                </label>
              ))
            )}
          </div>
        ) : null}
        {fields.playbooks ? <p className="text-xs font-medium text-danger">{fields.playbooks}</p> : null}
      </fieldset>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id={`${id}-expiry`} label="Expires">
          <Select<Expiry> id={`${id}-expiry`} value={expiry} onValueChange={setExpiry} options={EXPIRY_OPTIONS} />
        </Field>
        <Field
          id={`${id}-limit`}
          label="Requests a minute"
          optional
          hint="Empty: the server's default (ACE_API_RATE_LIMIT)."
          error={limitError ?? fields.rateLimitPerMinute}
        >
          <Input
            {...fieldAria(`${id}-limit`, limitError, true)}
            inputMode="numeric"
            value={limit}
            onChange={(event) => setLimit(event.target.value)}
          />
        </Field>
      </div>
      <ErrorNotice error={unshown} />
      <DialogFooter>
        <SubmitButton pending={create.isPending} pendingLabel="Creating…">
          Create the key
        </SubmitButton>
      </DialogFooter>
    </form>
  );
}
