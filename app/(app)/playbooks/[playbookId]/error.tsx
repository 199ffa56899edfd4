"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function PlaybookError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="This playbook could not be loaded" />;
}
