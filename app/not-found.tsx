import { FileQuestion } from "lucide-react";
import Link from "next/link";
import { buttonClass } from "@/components/ui/button";

export default function NotFound() {
  return (
    <div className="mx-auto my-20 flex max-w-md flex-col items-center text-center">
      <div className="mb-4 flex size-11 items-center justify-center rounded-xl bg-accent-soft text-accent" aria-hidden>
        <FileQuestion className="size-5" />
      </div>
      <h1 className="text-lg font-semibold tracking-tight text-ink">Not found</h1>
      <p className="mt-1.5 text-sm text-ink-muted">
        There is nothing at this address. The playbook may have been deleted, or the link is incomplete.
      </p>
      <Link href="/playbooks" className={`${buttonClass("primary")} mt-5`}>
        Back to playbooks
      </Link>
    </div>
  );
}
