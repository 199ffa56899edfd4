"use client";
// When the server says a request was not signed in (the session ended, an admin signed this person
// out), go to the sign-in page and come back here afterwards, instead of showing errors everywhere.
import { useQueryClient } from "@tanstack/react-query";
import { TRPCClientError } from "@trpc/client";
import { usePathname, useRouter } from "next/navigation";
import { useEffect } from "react";

const OWN_PAGES = ["/sign-in", "/setup", "/invite"];

function isUnauthorized(error: unknown): boolean {
  if (!(error instanceof TRPCClientError)) return false;
  const data: unknown = error.data;
  return typeof data === "object" && data !== null && "code" in data && (data as { code: unknown }).code === "UNAUTHORIZED";
}

export function SessionWatch() {
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  useEffect(() => {
    if (OWN_PAGES.some((page) => pathname === page || pathname.startsWith(`${page}/`))) return;
    let redirected = false;
    const onError = (error: unknown) => {
      if (redirected || !isUnauthorized(error)) return;
      redirected = true;
      const here = `${window.location.pathname}${window.location.search}`;
      router.replace(`/sign-in?next=${encodeURIComponent(here)}`);
    };
    const queries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error") onError(event.action.error);
    });
    const mutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error") onError(event.action.error);
    });
    return () => {
      queries();
      mutations();
    };
  }, [queryClient, router, pathname]);
  return null;
}
