"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function PlaybooksError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The playbooks could not be loaded" />;
}
