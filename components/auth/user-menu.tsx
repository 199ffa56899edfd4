"use client";
// The top bar's account corner: who is signed in and their role, the admin pages, sign out. In
// local mode: "Local admin" and the way to set up sign-in.
import { useMutation } from "@tanstack/react-query";
import { ChevronDown, KeyRound, LogOut, ScrollText, UserCog, Users } from "lucide-react";
import Link from "next/link";
import { useTRPC } from "@/components/trpc/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { ROLE_LABELS } from "@/server/auth/schemas";
import { useCan, useSession } from "./session-context";
import { reloadAt } from "./auth-card";

export function UserMenu() {
  const { identity } = useSession();
  const canManageUsers = useCan("users.manage");
  const canManageKeys = useCan("apikeys.manage");
  const canReadAudit = useCan("audit.read");
  const trpc = useTRPC();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSettled: () => reloadAt("/sign-in") }));
  if (identity.kind === "anonymous") return null;
  const admin = identity.role === "admin";
  const label = identity.kind === "local" ? "Local admin" : identity.name || identity.email;
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="sm" className="max-w-56" aria-label={`Account: ${label}, ${ROLE_LABELS[identity.role]}`}>
          <span className="truncate">{label}</span>
          <Badge tone={admin ? "accent" : "neutral"}>{ROLE_LABELS[identity.role]}</Badge>
          <ChevronDown aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        {identity.kind === "user" ? (
          <DropdownMenuLabel>{identity.email}</DropdownMenuLabel>
        ) : (
          <DropdownMenuLabel>No sign-in on this computer</DropdownMenuLabel>
        )}
        <DropdownMenuItem asChild>
          <Link href="/account">
            <UserCog aria-hidden /> {identity.kind === "user" ? "Account and password" : "About local mode"}
          </Link>
        </DropdownMenuItem>
        {canManageUsers || canManageKeys || canReadAudit ? <DropdownMenuSeparator /> : null}
        {canManageUsers ? (
          <DropdownMenuItem asChild>
            <Link href="/settings/users">
              <Users aria-hidden /> Users
            </Link>
          </DropdownMenuItem>
        ) : null}
        {canManageKeys ? (
          <DropdownMenuItem asChild>
            <Link href="/settings/api-keys">
              <KeyRound aria-hidden /> API keys
            </Link>
          </DropdownMenuItem>
        ) : null}
        {canReadAudit ? (
          <DropdownMenuItem asChild>
            <Link href="/audit">
              <ScrollText aria-hidden /> Audit log
            </Link>
          </DropdownMenuItem>
        ) : null}
        {identity.kind === "user" ? (
          <>
            <DropdownMenuSeparator />
            <DropdownMenuItem onSelect={() => signOut.mutate()} disabled={signOut.isPending}>
              <LogOut aria-hidden /> Sign out
            </DropdownMenuItem>
          </>
        ) : null}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
