"use client";
// "Playbook: All playbooks | <name>" for lists across playbooks (traces, runs). A playbook in the
// URL that the list no longer has (deleted since) still shows as chosen.
import { useQuery } from "@tanstack/react-query";
import { FilterSelect, type SelectOption } from "@/components/ui/select";
import { useTRPC } from "@/components/trpc/client";

export function PlaybookFilter({ value, onChange }: { value: string | null; onChange: (playbookId: string | null) => void }) {
  const trpc = useTRPC();
  const playbooks = useQuery(trpc.playbook.list.queryOptions()).data ?? [];
  const options: SelectOption<string>[] = playbooks.map((playbook) => ({
    value: playbook.id,
    label: playbook.name,
    textValue: playbook.name,
  }));
  if (value && !playbooks.some((playbook) => playbook.id === value)) options.push({ value, label: "Unknown playbook" });
  return (
    <FilterSelect
      label="Playbook"
      prefix="Playbook"
      className="w-full sm:w-64"
      value={value}
      onValueChange={onChange}
      any={{ label: "All playbooks" }}
      options={options}
    />
  );
}
