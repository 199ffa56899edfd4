"use client";
// Create an empty playbook (the server adds the ACE default sections). Field errors from the
// server's zod schema are shown under their fields.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Plus } from "lucide-react";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { RoleGate } from "@/components/auth/role-gate";
import { Button, SubmitButton } from "@/components/ui/button";
import { DialogActions, DialogButton } from "@/components/ui/dialog";
import { Field, fieldAria, Input, Textarea } from "@/components/ui/input";
import { useTRPC } from "@/components/trpc/client";
import { formErrors } from "@/components/ui/errors";

export function NewPlaybookDialog() {
  const button = (
    <Button variant="primary">
      <Plus aria-hidden /> New playbook
    </Button>
  );
  return (
    <RoleGate action="playbook.create" control={button}>
      <DialogButton button={button} title="New playbook" description="Starts with the ACE default sections and no bullets.">
        {(close) => <NewPlaybookForm onDone={close} />}
      </DialogButton>
    </RoleGate>
  );
}

function NewPlaybookForm({ onDone }: { onDone: () => void }) {
  const id = useId();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [agentLabel, setAgentLabel] = useState("");

  const mutation = useMutation(
    trpc.playbook.create.mutationOptions({
      onSuccess: async (created) => {
        toast.success(`Created “${created.name}”`);
        await queryClient.invalidateQueries({ queryKey: trpc.playbook.list.queryKey() });
        onDone();
        router.push(`/playbooks/${created.id}`);
      },
    }),
  );
  const { fields: errors, unshown } = formErrors(mutation.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    mutation.mutate({ name, description, agentLabel });
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
      <Field id={`${id}-name`} label="Name" error={errors.name}>
        <Input
          {...fieldAria(`${id}-name`, errors.name)}
          autoFocus
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="e.g. Support agent – production"
        />
      </Field>
      <Field id={`${id}-agent`} label="Agent" optional error={errors.agentLabel} hint="Which agent reads this playbook.">
        <Input
          {...fieldAria(`${id}-agent`, errors.agentLabel, true)}
          value={agentLabel}
          onChange={(e) => setAgentLabel(e.target.value)}
          placeholder="e.g. appworld-react"
        />
      </Field>
      <Field id={`${id}-description`} label="Description" optional error={errors.description}>
        <Textarea
          {...fieldAria(`${id}-description`, errors.description)}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          rows={3}
        />
      </Field>
      <DialogActions error={unshown} onCancel={onDone}>
        <SubmitButton pending={mutation.isPending} pendingLabel="Creating…">
          Create playbook
        </SubmitButton>
      </DialogActions>
    </form>
  );
}
