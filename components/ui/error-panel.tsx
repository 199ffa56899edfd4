"use client";
// The body of a route's error.tsx: what happened in words, and a way to try again.
import { useQueryErrorResetBoundary } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import { useEffect } from "react";
import { Button } from "./button";

export function ErrorPanel({ error, retry, title }: { error: unknown; retry: () => void; title: string }) {
  // A query that failed stays failed in the cache; clear that before rendering again.
  const { reset } = useQueryErrorResetBoundary();
  useEffect(() => {
    console.error(error);
  }, [error]);
  // Server errors arrive with a digest and a deliberately vague message; client ones (tRPC) are readable.
  const fromServer = typeof error === "object" && error !== null && "digest" in error;
  const message =
    error instanceof Error && error.message && !fromServer
      ? error.message
      : "The server could not complete the request. Try again; if it keeps failing, the server log has the details.";
  return (
    <div role="alert" className="mx-auto my-16 flex max-w-lg flex-col items-center text-center">
      <div className="mb-4 flex size-11 items-center justify-center rounded-xl bg-danger-soft text-danger" aria-hidden>
        <TriangleAlert className="size-5" />
      </div>
      <h1 className="text-lg font-semibold tracking-tight text-ink">{title}</h1>
      <p className="mt-1.5 text-sm text-ink-muted">{message}</p>
      <Button
        variant="primary"
        className="mt-5"
        onClick={() => {
          reset();
          retry();
        }}
      >
        Try again
      </Button>
    </div>
  );
}
