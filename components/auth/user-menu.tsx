"use client";
// The top bar's account corner: who is signed in and their role, the admin pages, sign out. In
// local mode: "Local admin" and the way to set up sign-in.
import { useMutation } from "@tanstack/react-query";
import { ChevronDown, KeyRound, LogOut, ScrollText, UserCog, Users, type LucideIcon } from "lucide-react";
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
import { allows, type Action } from "./permissions";
import { useSession } from "./session-context";
import { reloadAt } from "./auth-card";

/** The admin pages, each listed for those its action allows. */
const ADMIN_LINKS: readonly { action: Action; href: string; icon: LucideIcon; name: string }[] = [
  { action: "users.manage", href: "/settings/users", icon: Users, name: "Users" },
  { action: "apikeys.manage", href: "/settings/api-keys", icon: KeyRound, name: "API keys" },
  { action: "audit.read", href: "/audit", icon: ScrollText, name: "Audit log" },
];

export function UserMenu() {
  const { identity } = useSession();
  const trpc = useTRPC();
  const signOut = useMutation(trpc.auth.signOut.mutationOptions({ onSettled: () => reloadAt("/sign-in") }));
  if (identity.kind === "anonymous") return null;
  const admin = identity.role === "admin";
  const label = identity.kind === "local" ? "Local admin" : identity.name || identity.email;
  const adminLinks = ADMIN_LINKS.filter((link) => allows(identity, link.action));
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
        {adminLinks.length > 0 ? <DropdownMenuSeparator /> : null}
        {adminLinks.map(({ href, icon: Icon, name }) => (
          <DropdownMenuItem key={href} asChild>
            <Link href={href}>
              <Icon aria-hidden /> {name}
            </Link>
          </DropdownMenuItem>
        ))}
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
