"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function TracesError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The traces could not be loaded" />;
}
