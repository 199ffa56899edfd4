"use client";
// Copies a text to the clipboard and says so; where the clipboard is not available (plain http on
// another host), it says what to do instead.
import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { Button } from "@/components/ui/button";

export function CopyButton({ text, label, what, compact }: { text: string; label: string; what?: string; compact?: boolean }) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      toast.success(`Copied ${what ?? "to the clipboard"}`);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      toast.error("The clipboard is not available here. Select the text and copy it instead.");
    }
  }
  return compact ? (
    <Button size="icon" variant="ghost" aria-label={label} title={label} onClick={() => void copy()}>
      {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
    </Button>
  ) : (
    <Button size="sm" variant="ghost" onClick={() => void copy()}>
      {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
      {copied ? "Copied" : label}
    </Button>
  );
}
