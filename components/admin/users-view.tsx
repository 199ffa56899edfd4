"use client";
// Settings → Users: everyone with an account, their role (changed in place), whether they can sign
// in, and the actions an admin has: a new one-time link, sign out everywhere, disable, delete.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { MoreHorizontal, UserPlus } from "lucide-react";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { EmailField, NameField } from "@/components/auth/account-fields";
import { useSession } from "@/components/auth/session-context";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button, SubmitButton } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DialogButton, DialogFooter } from "@/components/ui/dialog";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { errorMessage, formErrors } from "@/components/ui/errors";
import { Field } from "@/components/ui/input";
import { LoadFailed } from "@/components/ui/load-failed";
import { ErrorNotice } from "@/components/ui/notice";
import { RelativeTime } from "@/components/ui/relative-time";
import { Select } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { ROLE_DESCRIPTIONS, ROLE_LABELS, ROLES, type InviteLink, type Role, type UserListItem } from "@/server/auth/schemas";
import { AdminTable } from "./admin-table";
import { AdminHeader } from "./settings-nav";
import { InviteLinkNotice } from "./invite-link";

const ROLE_OPTIONS = ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }));

function useInvalidateUsers() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: trpc.users.list.queryKey() });
}

export function UsersView() {
  const trpc = useTRPC();
  const users = useQuery(trpc.users.list.queryOptions());
  const [link, setLink] = useState<InviteLink | null>(null);
  return (
    <div className="pb-16">
      <AdminHeader
        title="Users"
        description="Viewers read everything and export; curators also edit, approve, reject, roll back and run the reflector and curator; admins also manage users, API keys, settings, budgets and the audit log."
        actions={<InviteButton onInvited={setLink} />}
      />
      {link ? (
        <div className="mb-4">
          <InviteLinkNotice link={link} />
        </div>
      ) : null}
      {users.isPending ? (
        <Skeleton className="h-40" />
      ) : users.isError ? (
        <LoadFailed what="users" error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <UsersTable users={users.data} onLink={setLink} />
      )}
    </div>
  );
}

function status(user: UserListItem): { label: string; tone: "green" | "amber" | "gray" | "red" } {
  if (user.disabled) return { label: "Disabled", tone: "red" };
  if (!user.hasPassword) return user.pendingInviteExpiresAt ? { label: "Invited", tone: "amber" } : { label: "Link expired", tone: "gray" };
  return { label: "Active", tone: "green" };
}

function UsersTable({ users, onLink }: { users: UserListItem[]; onLink: (link: InviteLink) => void }) {
  const { identity } = useSession();
  const self = identity.kind === "user" ? identity.userId : null;
  return (
    <AdminTable label="Users" columns={["Person", "Role", "Status", "Last sign-in"]} withActions>
      {users.map((user) => (
        <UserRow key={user.id} user={user} isSelf={user.id === self} onLink={onLink} />
      ))}
    </AdminTable>
  );
}

function UserRow({ user, isSelf, onLink }: { user: UserListItem; isSelf: boolean; onLink: (link: InviteLink) => void }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateUsers();
  const onError = (error: unknown) => toast.error(errorMessage(error));
  const done = (message: string) => async () => {
    toast.success(message);
    await invalidate();
  };
  const setRole = useMutation(
    trpc.users.setRole.mutationOptions({
      onSuccess: async (saved) => done(`${saved.email} is now ${ROLE_LABELS[saved.role].toLowerCase()}.`)(),
      onError,
    }),
  );
  const reinvite = useMutation(
    trpc.users.reinvite.mutationOptions({
      onSuccess: async (link) => {
        onLink(link);
        await invalidate();
      },
      onError,
    }),
  );
  const endSessions = useMutation(
    trpc.users.endSessions.mutationOptions({
      onSuccess: async ({ ended }) => done(`Signed ${user.email} out of ${ended} session${ended === 1 ? "" : "s"}.`)(),
      onError,
    }),
  );
  const disable = useMutation(
    trpc.users.disable.mutationOptions({
      onSuccess: done(`${user.email} is disabled and signed out; the API keys they created are revoked.`),
      onError,
    }),
  );
  const enable = useMutation(trpc.users.enable.mutationOptions({ onSuccess: done(`${user.email} can sign in again.`), onError }));
  const [confirmDelete, setConfirmDelete] = useState(false);
  const remove = useMutation(
    trpc.users.delete.mutationOptions({
      onSuccess: async () => {
        setConfirmDelete(false);
        await done(`${user.email} was deleted.`)();
      },
    }),
  );
  const state = status(user);
  return (
    <tr>
      <td className="px-4 py-3">
        <p className="font-medium text-ink">
          {user.name || user.email}
          {isSelf ? <span className="ml-1.5 text-xs font-normal text-ink-faint">(you)</span> : null}
        </p>
        {user.name ? <p className="text-xs text-ink-muted">{user.email}</p> : null}
      </td>
      <td className="px-4 py-3">
        <Select<Role>
          label={`Role of ${user.email}`}
          className="w-32"
          value={user.role}
          disabled={setRole.isPending}
          onValueChange={(role) => setRole.mutate({ userId: user.id, role })}
          options={ROLE_OPTIONS}
        />
      </td>
      <td className="px-4 py-3">
        <Badge tone={state.tone}>{state.label}</Badge>
        {user.activeSessions > 0 ? <span className="ml-2 text-xs text-ink-faint">{user.activeSessions} signed-in</span> : null}
      </td>
      <td className="px-4 py-3 text-ink-muted">{user.lastSignInAt ? <RelativeTime date={user.lastSignInAt} /> : "never"}</td>
      <td className="px-4 py-3 text-right">
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button size="icon" variant="ghost" aria-label={`Actions for ${user.email}`}>
              <MoreHorizontal aria-hidden />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent>
            <DropdownMenuItem onSelect={() => reinvite.mutate({ userId: user.id })}>
              {user.hasPassword ? "New link to set a password" : "New invite link"}
            </DropdownMenuItem>
            <DropdownMenuItem disabled={user.activeSessions === 0} onSelect={() => endSessions.mutate({ userId: user.id })}>
              Sign out everywhere
            </DropdownMenuItem>
            <DropdownMenuSeparator />
            {user.disabled ? (
              <DropdownMenuItem onSelect={() => enable.mutate({ userId: user.id })}>Enable</DropdownMenuItem>
            ) : (
              <DropdownMenuItem disabled={isSelf} onSelect={() => disable.mutate({ userId: user.id })}>
                Disable
              </DropdownMenuItem>
            )}
            <DropdownMenuItem disabled={isSelf} className="text-danger" onSelect={() => setConfirmDelete(true)}>
              Delete…
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
        <ConfirmDialog
          open={confirmDelete}
          onOpenChange={setConfirmDelete}
          title={`Delete ${user.email}?`}
          description="They can no longer sign in, and the API keys they created are revoked (transfer a service key to another admin first, in Settings → API keys). Their changes keep their name in the history and the audit log."
          confirmLabel="Delete"
          pendingLabel="Deleting…"
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate({ userId: user.id })}
        />
      </td>
    </tr>
  );
}

function InviteButton({ onInvited }: { onInvited: (link: InviteLink) => void }) {
  return (
    <DialogButton
      button={
        <Button variant="primary">
          <UserPlus aria-hidden /> Invite someone
        </Button>
      }
      title="Invite someone"
      description="They get a one-time link to set their password. ACE Studio sends no email: you pass the link on."
    >
      {(close) => (
        <InviteForm
          onDone={(link) => {
            onInvited(link);
            close();
          }}
        />
      )}
    </DialogButton>
  );
}

function InviteForm({ onDone }: { onDone: (link: InviteLink) => void }) {
  const id = useId();
  const trpc = useTRPC();
  const invalidate = useInvalidateUsers();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("curator");
  const invite = useMutation(
    trpc.users.invite.mutationOptions({
      onSuccess: async (link) => {
        await invalidate();
        onDone(link);
      },
    }),
  );
  const { fields, unshown } = formErrors(invite.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    invite.mutate({ email, name, role });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <EmailField id={id} value={email} onChange={setEmail} error={fields.email} autoComplete="off" autoFocus />
      <NameField id={id} value={name} onChange={setName} error={fields.name} autoComplete="off" />
      <Field id={`${id}-role`} label="Role" hint={ROLE_DESCRIPTIONS[role]}>
        <Select<Role> id={`${id}-role`} value={role} onValueChange={setRole} options={ROLE_OPTIONS} />
      </Field>
      <ErrorNotice error={unshown} />
      <DialogFooter>
        <SubmitButton pending={invite.isPending} pendingLabel="Creating the link…">
          Create the invite link
        </SubmitButton>
      </DialogFooter>
    </form>
  );
}
