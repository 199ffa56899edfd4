"use client";
import { ErrorPanel } from "@/components/ui/error-panel";

export default function ExperimentError({ error, retry }: { error: unknown; retry: () => void }) {
  return <ErrorPanel error={error} retry={retry} title="The experiment could not be loaded" />;
}
